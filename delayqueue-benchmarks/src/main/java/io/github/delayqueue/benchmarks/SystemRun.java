package io.github.delayqueue.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;
import java.util.function.Function;

import io.github.delayqueue.benchmarks.Measurements.DrainFigures;
import io.github.delayqueue.benchmarks.Measurements.ScheduleFigures;
import io.github.delayqueue.benchmarks.QueueUnderTest.Message;

/**
 * One system's part of a benchmark run, in a JVM of its own: its untimed warm-up, then each scenario's
 * measurements, written as {@link Measurements}. The harness ({@link Benchmarks}) starts one per system
 * ({@link SystemProcess}), one after the other, against the same Redis server, so that neither system runs on code the JIT compiled for the other's
 * (both use Netty) and neither inherits the other's heap.
 */
final class SystemRun {

	/** The systems compared, in the order they run. */
	static final List<String> SYSTEMS = List.of("delayqueue", "Redisson");

	/** The scenarios a system's JVM runs; the others need no system or only ours ({@link Benchmarks}). */
	static final List<String> SCENARIOS = List.of("schedule", "lateness", "drain", "drain-random", "drain-slow",
			"size", "loss");

	/** Time the slow-network drain's proxy adds in each direction. */
	/** Timed passes of each schedule shape, of which the median counts ({@link #measured}). */
	private static final int TIMED_PASSES = 3;

	private static final long SLOW_NETWORK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

	private final String system;

	private final String host;

	private final int port;

	private final Settings settings;

	private final AdminConnection admin;

	private final Costs costs;

	private final List<String> notes = new ArrayList<>();

	private final Workloads workloads;

	private SystemRun(String system, String host, int port, Settings settings, AdminConnection admin) {
		this.system = system;
		this.host = host;
		this.port = port;
		this.settings = settings;
		this.admin = admin;
		this.costs = new Costs(port, admin::info);
		this.workloads = new Workloads(settings, this.costs, this::note);
	}

	/**
	 * Runs one system's part: {@code SystemRun <system> <port> <result file> [benchmark options]}, against a Redis
	 * server on loopback; the options are {@link BenchmarkOptions}' ({@code --mode}, {@code --huge},
	 * {@code --only}).
	 * @param args the system, the port, the file to write the measurements to, and the options
	 */
	public static void main(String[] args) {
		if (args.length < 3 || !SYSTEMS.contains(args[0])) {
			throw new IllegalArgumentException(
					"Usage: SystemRun <" + String.join("|", SYSTEMS) + "> <port> <result file> [options]");
		}
		BenchmarkOptions options = BenchmarkOptions.parse(Arrays.copyOfRange(args, 3, args.length));
		DelayQueueSystem.storedFormat = options.storedFormat();
		int port = Integer.parseInt(args[1]);
		try (AdminConnection admin = new AdminConnection("127.0.0.1", port)) {
			new SystemRun(args[0], "127.0.0.1", port, Settings.of(options.mode(), options.huge()), admin)
				.run(options.scenarios())
				.write(Path.of(args[2]));
		}
		catch (Throwable ex) {
			// the clients' threads would keep this JVM alive: the harness waits for its exit code
			ex.printStackTrace();
			System.exit(1);
		}
		System.exit(0);
	}

	private QueueUnderTest open(int port) {
		return this.system.equals("delayqueue") ? new DelayQueueSystem(this.host, port)
				: new RedissonSystem(this.host, port);
	}

	private Measurements run(Set<String> scenarios) {
		warmUp();
		ScheduleFigures schedule = null;
		Map<Integer, Tally.Paced> lateness = new LinkedHashMap<>();
		Map<String, DrainFigures> drains = new LinkedHashMap<>();
		Map<Integer, Map<String, Samples.Summary>> sizes = new LinkedHashMap<>();
		List<Tally.Paced> loss = null;
		for (String scenario : SCENARIOS) {
			if (!scenarios.contains(scenario)) {
				continue;
			}
			checkQuiet(scenario);
			Benchmarks.log("== " + scenario + " (" + this.system + ")");
			switch (scenario) {
				case "schedule" -> schedule = schedule();
				case "lateness" -> lateness.putAll(lateness());
				case "drain", "drain-random" -> drains.put(scenario, drain(scenario.equals("drain-random")));
				case "drain-slow" -> drains.put(scenario, drainSlow());
				case "size" -> this.settings.sizes().forEach((size) -> sizes.put(size, costAt(size)));
				case "loss" -> loss = loss();
				default -> throw new IllegalArgumentException(scenario);
			}
		}
		this.admin.flush();
		return new Measurements(this.system, this.notes, schedule, lateness, drains, sizes, loss);
	}

	private void note(String note) {
		Benchmarks.log("NOTE " + note);
		this.notes.add(note);
	}

	/**
	 * Runs the hot paths untimed first (single, asynchronous and bulk schedules and a drain, each the size of the measured one),
	 * so that nothing is measured while its code is still being compiled by the JIT (the compiler's threads count in
	 * the process's CPU); meanwhile learns which commands the system's clients send ({@link Costs#learn}). Smaller
	 * warm-ups were not enough: after a drain of 10,000 the first measured drain cost twice the client CPU per message
	 * of the one after it, and after 10,000 single-message schedules the measured ones cost up to three times the
	 * client CPU of a long run.
	 */
	private void warmUp() {
		int n = this.settings.scheduleCount();
		this.admin.flush();
		try (QueueUnderTest queue = open(this.port)) {
			long start = System.nanoTime();
			this.costs.learn(this.system, () -> {
				this.workloads.scheduleSingly(queue, n, 8, "warm-a-");
				queue.scheduleMany(Workloads.farFuture("warm-b-", 0, n));
				queue.scheduleAsync(Workloads.farFuture("warm-d-", 0, n), 256);
				this.admin.flush();
				int drained = this.settings.drainCount();
				this.workloads.drain(queue, drained, false, () -> 0, Workloads.drainLead(drained));
			});
			Benchmarks.log(String.format(Locale.ROOT, "%s warmed up in %.1f s", this.system,
					Workloads.seconds(start)));
		}
		this.admin.flush();
	}

	/**
	 * Notes it when something else sends commands to Redis before a scenario (the load average is only checked at
	 * start: the run itself raises it).
	 */
	private void checkQuiet(String scenario) {
		long commands = this.admin.commandsWhileIdle();
		if (commands > AdminConnection.QUIET_COMMANDS) {
			note("Before '" + scenario + "' (" + this.system + "): Redis processed " + commands
					+ " commands in 0.5 s while idle: another load may be running");
		}
	}

	/**
	 * The schedule throughputs. Each pass (one thread, eight threads, bulk) runs once untimed and then timed
	 * ({@link #measured}): the JIT compiles for the load it sees, and a pass after another of a different shape (eight
	 * threads after one) first paid for re-compiling, Redisson's up to twice its steady client CPU per message.
	 */
	private ScheduleFigures schedule() {
		int n = this.settings.scheduleCount();
		try (QueueUnderTest queue = open(this.port)) {
			Pass oneThread = measured(n, (prefix) -> () -> this.workloads.scheduleSingly(queue, n, 1, prefix + "a-"));
			Pass eightThreads = measured(n,
					(prefix) -> () -> this.workloads.scheduleSingly(queue, n, 8, prefix + "b-"));
			Pass bulk = measured(n, (prefix) -> {
				List<Message> messages = Workloads.farFuture(prefix + "c-", 0, n);
				return () -> {
					long start = System.nanoTime();
					queue.scheduleMany(messages);
					return n / Workloads.seconds(start);
				};
			});
			Pass async8 = measured(n, (prefix) -> asyncPass(queue, Workloads.farFuture(prefix + "d-", 0, n), 8));
			Pass async256 = measured(n, (prefix) -> asyncPass(queue, Workloads.farFuture(prefix + "e-", 0, n), 256));
			ScheduleFigures figures = new ScheduleFigures(oneThread.rate(), eightThreads.rate(), bulk.rate(),
					oneThread.bytesPerMessage(), oneThread.cost(), eightThreads.cost(), bulk.cost(), async8.rate(),
					async256.rate(), async8.cost(), async256.cost());
			Benchmarks.log(this.system + ": " + figures);
			return figures;
		}
		finally {
			this.admin.flush();
		}
	}

	/** A pass of asynchronous single-message schedules from this thread alone, {@code inFlight} at most at once. */
	private static DoubleSupplier asyncPass(QueueUnderTest queue, List<Message> messages, int inFlight) {
		return () -> {
			long start = System.nanoTime();
			queue.scheduleAsync(messages, inFlight);
			return messages.size() / Workloads.seconds(start);
		};
	}

	/**
	 * Runs a pass untimed, then {@link #TIMED_PASSES} times timed, each on an empty server, and keeps the timed pass
	 * of the median rate. This machine has slow spells of several seconds in which everything (both systems, Redis)
	 * costs up to twice the CPU per operation for the same work; the median of three passes is what a spell that hits
	 * one pass leaves standing.
	 * @param n the messages a pass stores
	 * @param pass given a prefix for the messages' ids, prepares a pass (untimed) and returns it; the pass returns
	 * its rate
	 */
	private Pass measured(int n, Function<String, DoubleSupplier> pass) {
		this.admin.flush();
		pass.apply("warm-").getAsDouble();
		List<Pass> timed = new ArrayList<>();
		for (int i = 0; i < TIMED_PASSES; i++) {
			this.admin.flush();
			DoubleSupplier prepared = pass.apply("");
			long memoryBefore = this.admin.usedMemory();
			Costs.Interval interval = this.costs.start(this.system);
			double rate = prepared.getAsDouble();
			Costs.Cost cost = interval.stop(n);
			timed.add(new Pass(rate, cost, (this.admin.usedMemory() - memoryBefore) / (double) n));
		}
		Benchmarks.log(this.system + ": timed passes at " + timed.stream()
			.map((run) -> String.format(Locale.ROOT, "%.0f msgs/s (%s µs client CPU)", run.rate(),
					run.cost().clientCpuMicros()))
			.toList());
		timed.sort(Comparator.comparingDouble(Pass::rate));
		return timed.get(timed.size() / 2);
	}

	/**
	 * A timed pass.
	 *
	 * @param rate messages per second
	 * @param cost its cost per message
	 * @param bytesPerMessage Redis memory per message it stored
	 */
	private record Pass(double rate, Costs.Cost cost, double bytesPerMessage) {
	}

	private Map<Integer, Tally.Paced> lateness() {
		Map<Integer, Tally.Paced> byRate = new LinkedHashMap<>();
		int[][] runs = { { this.settings.lowRate(), this.settings.lowSeconds() },
				{ this.settings.highRate(), this.settings.highSeconds() } };
		for (int[] run : runs) {
			int rate = run[0];
			int total = rate * run[1];
			this.admin.flush();
			try (QueueUnderTest queue = open(this.port)) {
				byRate.put(rate, this.workloads.paced(queue, "l" + rate + "-", total, rate, 8,
						Workloads.CONSUMER_THREADS, Math.max(30_000, total / 500 * 1000L)));
			}
		}
		this.admin.flush();
		return byRate;
	}

	private DrainFigures drain(boolean randomOrder) {
		this.admin.flush();
		int n = this.settings.drainCount();
		try (QueueUnderTest queue = open(this.port)) {
			return this.workloads.drain(queue, n, randomOrder, () -> 0, Workloads.drainLead(n));
		}
		finally {
			this.admin.flush();
		}
	}

	/**
	 * The drain in due order with every connection (commands, pub/sub, blocking pops, and the storing of the
	 * messages) going through a proxy that delays each chunk by 0.5 ms in each direction. Storing through it is
	 * slower (Redisson's offers most), so the first message is due later; the measured interval starts only then,
	 * when all are stored.
	 */
	private DrainFigures drainSlow() {
		this.admin.flush();
		long direct = DelayingProxy.medianPingMicros(this.port, 50);
		int n = this.settings.drainCount();
		try (DelayingProxy proxy = new DelayingProxy(this.port, SLOW_NETWORK_NANOS)) {
			long through = DelayingProxy.medianPingMicros(proxy.port(), 50);
			DrainFigures figures;
			try (QueueUnderTest queue = open(proxy.port())) {
				figures = this.workloads.drain(queue, n, false, proxy::cpuNanos, Workloads.drainLead(n) + n / 5);
			}
			return figures.withNetwork(
					new Measurements.Network(SLOW_NETWORK_NANOS, direct, through, proxy.connections()));
		}
		finally {
			this.admin.flush();
		}
	}

	private Map<String, Samples.Summary> costAt(int size) {
		this.admin.flush();
		try (QueueUnderTest queue = open(this.port)) {
			return new WaitingCosts(this.settings, this::note).measure(queue, size);
		}
		finally {
			this.admin.flush();
		}
	}

	private List<Tally.Paced> loss() {
		this.admin.flush();
		try (QueueUnderTest queue = open(this.port)) {
			List<Tally.Paced> rounds = new ArrayList<>();
			for (int round = 1; round <= this.settings.lossRounds(); round++) {
				// one consumer per round, one handler thread, messages sent 10 ms apart
				rounds.add(this.workloads.paced(queue, "r" + round + "-", this.settings.lossMessages(), 100, 1, 1,
						10_000));
			}
			return rounds;
		}
		finally {
			this.admin.flush();
		}
	}

}
