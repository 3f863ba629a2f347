package io.github.delayqueue.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;

import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.Lease;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

/**
 * What one call of each small operation costs Redis, made one at a time as an order-timeout application makes them:
 * a cancel of a waiting message (the commonest call: most orders get paid), a look-up, a lone schedule, an
 * acknowledgement outside a claim and a claim that finds nothing due, on a topic with many waiting. Each is costed in
 * Redis's own CPU time per call ({@code INFO cpu}: reading, running and answering the call; not its wall time, which a
 * busy machine's scheduling inflates), with the store calling its Redis Functions library, with {@code EVALSHA}, and
 * as the floor: a bare script of the operation's essential commands on the same topic's keys; the three take turns in
 * rounds. The difference between the two ways is
 * the fixed cost the library saves each call; the ratio to the floor is what the operation adds to the least it could
 * do.
 */
final class CallCostBenchmark {

	private static final String TOPIC = "calls";

	private static final String SECTION = "10. Cost of a call: one operation at a time, %,d waiting (Redis CPU µs per "
			+ "call, INFO cpu)";

	private static final int ROUNDS = 5;

	private final List<RedisConnection> connections = new ArrayList<>();

	private final DelayQueueSystem system;

	private final AdminConnection admin;

	private final Report report;

	private final int waiting;

	private final int calls;

	CallCostBenchmark(DelayQueueSystem system, AdminConnection admin, Report report, int waiting, int calls) {
		this.system = system;
		this.admin = admin;
		this.report = report;
		this.waiting = waiting;
		this.calls = calls;
	}

	void run() {
		RedisMessageStore store = this.system.store();
		Instant later = Instant.now().plus(Duration.ofHours(1));
		List<NewMessage> chunk = new ArrayList<>();
		for (int i = 0; i < this.waiting; i++) {
			chunk.add(message("w-" + i, later.plusMillis(i % 3_600_000)));
			if (chunk.size() == RedisMessageStore.CHUNK_SIZE || i == this.waiting - 1) {
				store.messages().schedule(TOPIC, chunk);
				chunk = new ArrayList<>();
			}
		}
		String pending = "dq:{" + TOPIC + "}:pending";
		String body = "dq:{" + TOPIC + "}:body:0";
		String section = String.format(Locale.ROOT, SECTION, this.waiting);
		// each way of each operation takes ids of its own (cancels: 0 to 3n, look-ups: 3n to 6n)
		int n = this.calls;
		row(section, "cancel of a waiting message",
				(i) -> store.messages().cancel(TOPIC, "w-" + i), (i) -> store.messages().cancel(TOPIC, "w-" + (n + i)),
				"redis.call('ZREM', KEYS[1], ARGV[1]) redis.call('HDEL', KEYS[2], ARGV[1])",
				(i) -> new String[] { pending, body, "w-" + (2 * n + i) }, "ZREM + HDEL");
		row(section, "look-up of a waiting message",
				(i) -> store.messages().lookup(TOPIC, "w-" + (3 * n + i)),
				(i) -> store.messages().lookup(TOPIC, "w-" + (4 * n + i)),
				"return { redis.call('ZSCORE', KEYS[1], ARGV[1]), redis.call('HGET', KEYS[2], ARGV[1]) }",
				(i) -> new String[] { pending, body, "w-" + (5 * n + i) }, "ZSCORE + HGET");
		row(section, "lone schedule",
				(i) -> store.messages().schedule(TOPIC, List.of(message("s-" + i, later))),
				(i) -> store.messages().schedule(TOPIC, List.of(message("s-" + (n + i), later))),
				"local t = redis.call('TIME') if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then "
						+ "redis.call('ZADD', KEYS[1], t[1] * 1000 + 3600000, ARGV[1]) end",
				(i) -> new String[] { pending, "dq:{" + TOPIC + "}:floor", "s-" + (2 * n + i), "{\"payload\":\"x\"}" },
				"TIME + HSETNX + ZADD");
		row(section, "claim that finds nothing due",
				(i) -> store.leases().claim(TOPIC, 1, 30_000, 5), (i) -> store.leases().claim(TOPIC, 1, 30_000, 5),
				"local t = redis.call('TIME') return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', t[1], 'LIMIT', 0, 1)",
				(i) -> new String[] { pending, body }, "TIME + ZRANGEBYSCORE");
		List<Lease> leases = leases(store, 2 * n + 2);
		row(section, "acknowledgement outside a claim",
				(i) -> store.leases().ack("acks", List.of(leases.get(i))),
				(i) -> store.leases().ack("acks", List.of(leases.get(n + 1 + i))),
				"redis.call('ZREM', KEYS[1], ARGV[1]) redis.call('HDEL', KEYS[2], ARGV[1])",
				(i) -> new String[] { "dq:{acks}:leased", "dq:{acks}:lease", "none-" + i }, "ZREM + HDEL");
		store.setRedisFunctions(true);
		this.connections.forEach(RedisConnection::close);
	}

	/** Messages of their own topic, due now, claimed: leases to acknowledge one by one. */
	private static List<Lease> leases(RedisMessageStore store, int count) {
		List<NewMessage> due = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			due.add(message("a-" + i, Instant.now().minusSeconds(1)));
		}
		for (int from = 0; from < count; from += RedisMessageStore.CHUNK_SIZE) {
			store.messages().schedule("acks", due.subList(from, Math.min(count, from + RedisMessageStore.CHUNK_SIZE)));
		}
		List<Lease> leases = new ArrayList<>();
		while (leases.size() < count) {
			Claim claim = store.leases().claim("acks", 128, 600_000, 5);
			if (claim.messages().isEmpty()) {
				throw new IllegalStateException("Claimed " + leases.size() + " of " + count + " due messages");
			}
			for (ClaimedMessage message : claim.messages()) {
				leases.add(message.lease());
			}
		}
		return leases;
	}

	private void row(String section, String figure, IntConsumer byFunctions, IntConsumer byScripts, String floor,
			IntFunction<String[]> floorArguments, String floorName) {
		RedisMessageStore store = this.system.store();
		IntConsumer bare = bareScript(floor, floorArguments);
		store.setRedisFunctions(true);
		byFunctions.accept(0);
		store.setRedisFunctions(false);
		byScripts.accept(0);
		// the three ways take turns, a round at a time, so that a load on the machine falls on all three alike
		List<Double> functions = new ArrayList<>();
		List<Double> scripts = new ArrayList<>();
		List<Double> floors = new ArrayList<>();
		int perRound = this.calls / ROUNDS;
		for (int round = 0; round < ROUNDS; round++) {
			int from = round * perRound + 1;
			store.setRedisFunctions(true);
			functions.add(cpuPerCall(byFunctions, from, perRound));
			store.setRedisFunctions(false);
			scripts.add(cpuPerCall(byScripts, from, perRound));
			floors.add(cpuPerCall(bare, from, perRound));
		}
		store.setRedisFunctions(true);
		double ours = PairedRuns.median(functions);
		double evalSha = PairedRuns.median(scripts);
		double least = PairedRuns.median(floors);
		this.report.row(section, figure, "µs", Report.Better.LOWER, ours, null,
				String.format(Locale.ROOT, "with EVALSHA %.2f µs (the library saves %.2f µs a call); floor %.2f µs "
						+ "(a bare script: %s), %.2f× it; medians of %d rounds of %,d calls each way, the ways taking "
						+ "turns; Redisson has no such call beside ours",
						evalSha, evalSha - ours, least, floorName, ours / least, ROUNDS, perRound));
		this.report.details("call-cost")
			.put(figure, Map.of("functions", functions, "evalsha", scripts, "floor", floors));
	}

	/** Redis's CPU time per call ({@code INFO cpu}, user and system) over calls {@code from} on. */
	private double cpuPerCall(IntConsumer call, int from, int count) {
		double before = redisCpuMicros();
		for (int i = from; i < from + count; i++) {
			call.accept(i);
		}
		return (redisCpuMicros() - before) / count;
	}

	private double redisCpuMicros() {
		Properties cpu = this.admin.info("cpu");
		return (Double.parseDouble(cpu.getProperty("used_cpu_sys", "0").trim())
				+ Double.parseDouble(cpu.getProperty("used_cpu_user", "0").trim())) * 1e6;
	}

	/** A bare script's call, by {@code EVALSHA} on a connection of its own. */
	private IntConsumer bareScript(String script, IntFunction<String[]> arguments) {
		byte[] text = script.getBytes(StandardCharsets.UTF_8);
		RedisConnection connection = this.system.connectionFactory().getConnection();
		this.connections.add(connection);
		String sha = connection.scriptingCommands().scriptLoad(text);
		return (i) -> {
			String[] args = arguments.apply(i);
			byte[][] keysAndArgs = new byte[args.length][];
			for (int j = 0; j < args.length; j++) {
				keysAndArgs[j] = args[j].getBytes(StandardCharsets.UTF_8);
			}
			connection.scriptingCommands().evalSha(sha, ReturnType.MULTI, 2, keysAndArgs);
		};
	}

	private static NewMessage message(String id, Instant due) {
		return new NewMessage(id, DueTime.at(due.toEpochMilli()), Instant.now(), Map.of(),
				"\"a payload of thirty bytes....\"".getBytes(StandardCharsets.UTF_8));
	}

}
