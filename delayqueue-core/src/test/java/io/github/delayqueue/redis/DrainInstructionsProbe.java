package io.github.delayqueue.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.Claimant;
import io.github.delayqueue.redis.internal.Lease;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Not a test of behaviour: the driver of the drain's instruction count (docs/benchmarks-journal.md, "What a
 * delivered message costs Redis"). Runs only when {@code -Ddrain.port} names a Redis server that someone runs under
 * {@code valgrind --tool=callgrind --instr-atstart=no}: stores {@code drain.messages} due messages in batches of
 * {@value RedisMessageStore#CHUNK_SIZE}, then (with {@code -Ddrain.pid}, the server's process id) switches
 * instrumentation on, claims up to {@code drain.limit} (128) at a time (with {@code -Ddrain.functions=false}
 * through {@code EVALSHA} rather than the library's functions) carrying the previous claim's acknowledgements until a claim leases
 * nothing, and switches it off; the instructions the server counted, divided by the messages, are the cost of one
 * delivered message. The same file drives any commit's store whose claim API is this one.
 */
@EnabledIfSystemProperty(named = "drain.port", matches = "\\d+")
class DrainInstructionsProbe {

	private static final String TOPIC = "drain";

	private static final long LEASE = 600_000;

	@Test
	void drain() throws Exception {
		int port = Integer.getInteger("drain.port");
		int n = Integer.getInteger("drain.messages", 20_000);
		String pid = System.getProperty("drain.pid");
		int limit = Integer.getInteger("drain.limit", 128);
		boolean mayLeaseSuspect = Boolean.getBoolean("drain.suspects");
		long lookahead = Long.getLong("drain.lookahead", 0);
		// stored in an order shuffled with a fixed seed (the due times stay those of the ids), as the benchmark's
		// drain-random row stores them
		boolean shuffled = Boolean.getBoolean("drain.shuffle");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1",
				port), LettuceClientConfiguration.builder().commandTimeout(Duration.ofMinutes(10)).build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			RedisMessageStore store = new RedisMessageStore(factory, "dq", DeadLetterPolicy.DEFAULT);
			// -Ddrain.functions=false: the scripts with EVALSHA instead of the library's functions
			store.setRedisFunctions(!"false".equals(System.getProperty("drain.functions")));
			// message i due i µs after the first, stored in calls of a chunk (a due time in ms, to the µs, as a delay
			// from the Redis time would be: the order of the due times is the ids', whatever the order of storing)
			long first = System.currentTimeMillis() + 10;
			List<NewMessage> messages = new ArrayList<>();
			for (int i = 0; i < n; i++) {
				String id = String.format("d-%06d", i);
				byte[] payload = ("\"" + id + "|1764262800000000\"").getBytes(StandardCharsets.UTF_8);
				messages.add(new NewMessage(id, DueTime.at(first + i / 1000), Instant.now(), Map.of(), payload));
			}
			if (shuffled) {
				Collections.shuffle(messages, new Random(20240601));
			}
			for (int from = 0; from < n; from += RedisMessageStore.CHUNK_SIZE) {
				assertThat(store.messages()
					.schedule(TOPIC, messages.subList(from, Math.min(n, from + RedisMessageStore.CHUNK_SIZE))))
					.containsOnly(true);
			}
			// every message is due once the last one is
			Thread.sleep(Math.max(100, n / 1000 + 50));
			Claimant claimant = Claimant.create();
			List<Lease> acks = new ArrayList<>();
			int delivered = 0;
			int claims = 0;
			// the claim script loaded (its first call compiles it) before the count starts
			store.leases().claim(TOPIC, 0, LEASE, 10);
			instrument(pid, "on");
			double cpuBefore = redisCpuSeconds(factory);
			while (true) {
				Claim claim = store.leases().claim(TOPIC, claimant, List.copyOf(acks), limit, LEASE, 10,
						mayLeaseSuspect, lookahead);
				claims++;
				acks.clear();
				claim.messages().forEach((message) -> acks.add(message.lease()));
				delivered += claim.messages().size();
				if (claim.messages().isEmpty()) {
					break;
				}
			}
			instrument(pid, "off");
			double cpu = redisCpuSeconds(factory) - cpuBefore;
			System.out.printf("drain probe: %d delivered in %d claims, Redis CPU %.2f us per message%n", delivered,
					claims, cpu * 1e6 / delivered);
			assertThat(delivered).isEqualTo(n);
		}
		finally {
			factory.destroy();
		}
	}

	/** used_cpu_sys + used_cpu_user of INFO cpu. */
	private static double redisCpuSeconds(LettuceConnectionFactory factory) {
		try (RedisConnection connection = factory.getConnection()) {
			Properties cpu = connection.serverCommands().info("cpu");
			return Double.parseDouble(cpu.getProperty("used_cpu_sys").trim())
					+ Double.parseDouble(cpu.getProperty("used_cpu_user").trim());
		}
	}

	private static void instrument(String pid, String state) throws IOException, InterruptedException {
		if (pid == null) {
			return;
		}
		Process process = new ProcessBuilder("callgrind_control", "-i", state, pid).inheritIO().start();
		assertThat(process.waitFor()).isZero();
	}

}
