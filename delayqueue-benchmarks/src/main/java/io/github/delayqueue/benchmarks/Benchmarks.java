package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.benchmarks.Report.Better;
import io.github.delayqueue.embedded.RedisServerProcess;
import org.jspecify.annotations.Nullable;

/**
 * Measures delayqueue and Redisson's {@code RDelayedQueue} side by side, on one Redis server that this harness
 * starts on loopback, in one run: schedule throughput and memory, steady-rate lateness, drain throughput, cost
 * against the number of waiting messages, the classic loss report, and redis-benchmark's ceiling for an
 * equivalent script; each throughput comes with its cost per message ({@link Costs}), and one drain runs through a
 * proxy that adds a millisecond to every round trip ({@link DelayingProxy}). Each system runs in a JVM of its own,
 * one after the other ({@link SystemRun}); this one compares their measurements ({@link Comparison}), prints a
 * markdown table and writes it, with JSON, to the output folder.
 *
 * <pre>
 * mvn -B -q -Pbenchmark -DskipTests -pl delayqueue-benchmarks -am verify                        # quick, a few minutes
 * mvn -B -q -Pbenchmark -DskipTests -pl delayqueue-benchmarks -am verify -Dbenchmark.mode=full  # the documented table
 * mvn ... -Dbenchmark.mode=full -Dbenchmark.args=--huge                                          # adds 10 M waiting
 * mvn ... -Dbenchmark.mode=full -Dbenchmark.args=--only=production                              # production size alone
 * mvn ... -Dbenchmark.args="--only=drain,drain-random --pairs=5 --redis-server=/usr/bin/redis-server" # medians of 5 pairs
 * </pre>
 * Options: {@code --mode=smoke|quick|full}, {@code --out=DIR}, {@code --huge}, {@code --only=SCENARIO,...}
 * (ceiling, schedule, lateness, drain, drain-random, drain-slow, size, loss, rate-limit, fair-delivery, production,
 * io-bound, call-cost, instructions: under callgrind, needs valgrind, batch-drain, subscription-drain),
 * {@code --redis-server=PATH}, {@code --pairs=N}
 * ({@link BenchmarkOptions}; several may share one argument, separated by blanks).
 */
public final class Benchmarks {

	static final List<String> SCENARIOS = List.of("ceiling", "schedule", "lateness", "drain", "drain-random",
			"drain-slow", "size", "loss", "rate-limit", "fair-delivery", "production", "io-bound", "call-cost",
			"instructions", "batch-drain", "subscription-drain");

	private final Settings settings;

	private final int port;

	private final Report report;

	private final AdminConnection admin;

	/** Which {@code redis-server} binary runs: the embedded one or the one given. */
	private final String redisBinary;

	private @Nullable Double ceiling;

	private Benchmarks(Settings settings, int port, Report report, String redisBinary, AdminConnection admin) {
		this.redisBinary = redisBinary;
		this.settings = settings;
		this.port = port;
		this.report = report;
		this.admin = admin;
	}

	/**
	 * Runs the benchmark from the command line.
	 * @param args see {@link BenchmarkOptions}
	 */
	public static void main(String[] args) {
		BenchmarkOptions options = BenchmarkOptions.parse(args);
		Report report = run(options);
		System.out.println();
		System.out.println(report.markdown());
		System.out.println("Written to " + options.out().toAbsolutePath().resolve("results-" + options.mode()
				+ ".{md,json}"));
		System.exit(0);
	}

	/**
	 * Starts a Redis server on a free loopback port, runs the scenarios against it (each system's in a JVM of its
	 * own) and writes the report, with each system's measurements beside it ({@code measurements-<system>.json}).
	 * @param options the sizes, the output folder, the scenarios and the {@code redis-server} binary
	 * @return the report
	 */
	static Report run(BenchmarkOptions options) {
		DelayQueueSystem.storedFormat = options.storedFormat();
		Settings settings = Settings.of(options.mode(), options.huge());
		Report report = new Report();
		long started = System.nanoTime();
		RedisServerProcess.Builder server = RedisServerProcess.onFreePort();
		if (options.redisServer() != null) {
			server.binary(options.redisServer());
		}
		try (RedisServerProcess redis = server.start();
				AdminConnection admin = new AdminConnection("127.0.0.1", redis.port())) {
			Benchmarks benchmarks = new Benchmarks(settings, redis.port(), report,
					(options.redisServer() != null) ? options.redisServer().toString() : "the embedded binary", admin);
			benchmarks.describeEnvironment();
			Set<String> scenarios = options.scenarios();
			if (scenarios.contains("ceiling")) {
				benchmarks.checkQuiet("ceiling");
				log("== ceiling");
				benchmarks.ceiling();
			}
			List<String> perSystem = SystemRun.SCENARIOS.stream().filter(scenarios::contains).toList();
			if (!perSystem.isEmpty() && options.pairs() == 1) {
				Map<String, Measurements> measured = runSystems(SystemRun.SYSTEMS, redis.port(), options, perSystem,
						report);
				benchmarks.compare(report, perSystem, measured.get("delayqueue"), measured.get("Redisson"));
			}
			else if (!perSystem.isEmpty()) {
				PairedRuns paired = new PairedRuns();
				for (int pair = 0; pair < options.pairs(); pair++) {
					log("== pair " + (pair + 1) + " of " + options.pairs());
					// the systems take turns to go first, so that neither always runs on the warmer machine
					List<String> order = (pair % 2 == 0) ? SystemRun.SYSTEMS
							: List.of(SystemRun.SYSTEMS.get(1), SystemRun.SYSTEMS.get(0));
					Map<String, Measurements> measured = runSystems(order, redis.port(), options, perSystem, report);
					Report one = new Report();
					benchmarks.compare(one, perSystem, measured.get("delayqueue"), measured.get("Redisson"));
					one.notes().stream().filter((note) -> !report.notes().contains(note)).forEach(report::note);
					paired.add(one);
				}
				paired.addTo(report);
				report.environment("pairs", options.pairs() + " alternating pairs of the side-by-side scenarios: "
						+ "each figure is the median, its spread and the ratio's in the row's note");
			}
			if (scenarios.contains("rate-limit")) {
				benchmarks.checkQuiet("rate-limit");
				log("== rate-limit");
				benchmarks.rateLimit();
			}
			if (scenarios.contains("fair-delivery")) {
				benchmarks.checkQuiet("fair-delivery");
				log("== fair-delivery");
				benchmarks.fairDelivery();
			}
			if (scenarios.contains("io-bound")) {
				benchmarks.checkQuiet("io-bound");
				log("== io-bound");
				benchmarks.ioBound();
			}
			if (scenarios.contains("batch-drain")) {
				benchmarks.checkQuiet("batch-drain");
				log("== batch-drain");
				benchmarks.batchDrain();
			}
			if (scenarios.contains("subscription-drain")) {
				benchmarks.checkQuiet("subscription-drain");
				log("== subscription-drain");
				benchmarks.subscriptionDrain();
			}
			if (scenarios.contains("call-cost")) {
				benchmarks.checkQuiet("call-cost");
				log("== call-cost");
				benchmarks.callCost();
			}
			if (scenarios.contains("instructions")) {
				log("== instructions");
				benchmarks.instructions(options, (options.redisServer() != null) ? options.redisServer()
						: RedisServerProcess.findBinary());
			}
			if (scenarios.contains("production")) {
				benchmarks.checkQuiet("production");
				log("== production");
				new ProductionSize("127.0.0.1", redis.port(), admin, report, settings).run();
			}
		}
		report.environment("run time", String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - started) / 1e9));
		report.write(options.out(), settings.mode());
		return report;
	}

	private void compare(Report into, List<String> scenarios, Measurements ours, Measurements theirs) {
		Comparison comparison = new Comparison(into, this.settings, this.ceiling, ours, theirs);
		scenarios.forEach(comparison::add);
	}

	/** Runs each system's JVM through the scenarios, in the order given. */
	private static Map<String, Measurements> runSystems(List<String> systems, int port, BenchmarkOptions options,
			List<String> scenarios, Report report) {
		Map<String, Measurements> measured = new LinkedHashMap<>();
		for (String system : systems) {
			Measurements measurements = SystemProcess.run(system, port, options, scenarios);
			report.addNotes(measurements.notes());
			measured.put(system, measurements);
		}
		return measured;
	}

	// ---------------------------------------------------------------- environment

	private void describeEnvironment() {
		Properties server = this.admin.info("server");
		this.report.environment("mode", this.settings.mode());
		this.report.environment("date", Instant.now().toString());
		this.report.environment("machine", Runtime.getRuntime().availableProcessors() + " cores, "
				+ System.getProperty("os.name") + " " + System.getProperty("os.arch"));
		this.report.environment("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version")
				+ "; each system in a JVM of its own, one after the other, with the options "
				+ SystemProcess.jvmOptions());
		// the allocator matters: a build with libc's malloc (the embedded binary) spends more per script call than
		// one with jemalloc (Redis's default, and the distributions' builds)
		this.report.environment("redis", "redis-server " + server.getProperty("redis_version") + " ("
				+ this.redisBinary + ", "
				+ this.admin.info("memory").getProperty("mem_allocator", "allocator unknown").trim()
				+ ") on loopback (a free port), no persistence, started by the harness");
		this.report.environment("redisson", Redisson.VERSION);
		String load = loadAverage();
		this.report.environment("load average at start", load);
		try {
			if (Double.parseDouble(load.split(" ")[0]) > 1.0) {
				this.report.note("The machine was not idle at start (load average " + load + "): figures may be low");
			}
		}
		catch (NumberFormatException ex) {
			// not on Linux
		}
		int clients = Integer.parseInt(this.admin.info("clients").getProperty("connected_clients", "0").trim());
		if (clients != 1) {
			this.report.note("Redis had " + clients + " clients at start, expected only the harness");
		}
	}

	/** Notes it when something else sends commands to Redis before a scenario. */
	private void checkQuiet(String scenario) {
		long commands = this.admin.commandsWhileIdle();
		if (commands > AdminConnection.QUIET_COMMANDS) {
			this.report.note("Before '" + scenario + "': Redis processed " + commands
					+ " commands in 0.5 s while idle: another load may be running");
		}
	}

	private static String loadAverage() {
		try {
			String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
			return parts[0] + " " + parts[1] + " " + parts[2];
		}
		catch (IOException | RuntimeException ex) {
			return "unknown";
		}
	}

	// ---------------------------------------------------------------- the ceiling, and ours alone

	private void ceiling() {
		Path binary = redisBenchmark();
		if (this.settings.ceilingRequests() == 0 || binary == null) {
			this.report.note("redis-benchmark " + ((binary == null) ? "not found (PATH, or beside redis-server)"
					: "skipped in this mode") + ": no ceiling figure");
			return;
		}
		this.admin.flush();
		String script = "local t = redis.call('TIME') "
				+ "if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then "
				+ "redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end return 1";
		List<String> command = List.of(binary.toString(), "-h", "127.0.0.1", "-p", Integer.toString(this.port), "-n",
				Integer.toString(this.settings.ceilingRequests()), "-c", "50", "-r", "1000000000", "-q", "EVAL",
				script, "2", "ceiling:{t}:msgs", "ceiling:{t}:due", "id-__rand_int__", "\"m-0001234|1764000000000000\"",
				"4102444800000");
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(5, TimeUnit.MINUTES) || process.exitValue() != 0) {
				this.report.note("redis-benchmark failed: " + output.trim());
				return;
			}
			Matcher matcher = Pattern.compile("([0-9.]+) requests per second").matcher(output);
			Double rate = null;
			while (matcher.find()) {
				rate = Double.parseDouble(matcher.group(1));
			}
			this.ceiling = rate;
			this.report.row("Ceiling", "redis-benchmark: a Lua script with TIME, HSETNX and ZADD, 50 clients",
					"calls/s", Better.HIGHER, rate, rate, "what Redis itself does here; the same figure for both");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.admin.flush();
		}
	}

	private static Path redisBenchmark() {
		List<Path> candidates = new ArrayList<>();
		Path onPath = InstructionsBenchmark.onPath("redis-benchmark");
		if (onPath != null) {
			candidates.add(onPath);
		}
		try {
			candidates.add(RedisServerProcess.findBinary().resolveSibling("redis-benchmark"));
		}
		catch (RuntimeException ex) {
			// no server binary either
		}
		return candidates.stream().filter(Files::isExecutable).findFirst().orElse(null);
	}

	/** A topic limited to a rate, drained by two instances: the rate they deliver at ({@link RateLimitBenchmark}). */
	private void rateLimit() {
		this.admin.flush();
		Duration window = switch (this.settings.mode()) {
			case "smoke" -> Duration.ofSeconds(2);
			case "quick" -> Duration.ofSeconds(10);
			default -> Duration.ofSeconds(30);
		};
		try (DelayQueueSystem system = new DelayQueueSystem("127.0.0.1", this.port)) {
			new RateLimitBenchmark(system, this.report, 500, window).run();
		}
		this.admin.flush();
	}

	/** One small operation at a time: Redis's cost per call, both ways and beside the floor ({@link CallCostBenchmark}). */
	private void callCost() {
		this.admin.flush();
		int waiting = "smoke".equals(this.settings.mode()) ? 1_000 : 100_000;
		int calls = "smoke".equals(this.settings.mode()) ? 100 : 10_000;
		try (DelayQueueSystem system = new DelayQueueSystem("127.0.0.1", this.port)) {
			new CallCostBenchmark(system, this.admin, this.report, waiting, calls).run();
		}
		this.admin.flush();
	}

	/** Redis's instructions per delivered message under callgrind, both systems ({@link InstructionsBenchmark}). */
	private void instructions(BenchmarkOptions options, Path binary) {
		int messages = "smoke".equals(this.settings.mode()) ? 500 : 20_000;
		new InstructionsBenchmark(this.report, binary, options.out(), messages).run();
	}

	/** Groups beside the same topic without groups ({@link FairDeliveryBenchmark}). */
	private void fairDelivery() {
		this.admin.flush();
		int backlog = switch (this.settings.mode()) {
			case "smoke" -> 2_000;
			default -> 100_000;
		};
		try (DelayQueueSystem system = new DelayQueueSystem("127.0.0.1", this.port)) {
			new FairDeliveryBenchmark(system, this.admin, this.report, backlog).run();
		}
		this.admin.flush();
	}

	/** Handlers that complete 10 ms later without a thread, beside blocking ones ({@link IoBoundDrainBenchmark}). */
	private void ioBound() {
		this.admin.flush();
		int backlog = switch (this.settings.mode()) {
			case "smoke" -> 2_000;
			default -> 100_000;
		};
		try (DelayQueueSystem system = new DelayQueueSystem("127.0.0.1", this.port)) {
			new IoBoundDrainBenchmark(system, this.admin, this.report, backlog).run();
		}
		this.admin.flush();
	}

	/** A batch listener's drain beside a one-message listener's ({@link BatchDrainBenchmark}). */
	private void batchDrain() {
		this.admin.flush();
		int backlog = switch (this.settings.mode()) {
			case "smoke" -> 2_000;
			default -> 100_000;
		};
		try (DelayQueueSystem system = new DelayQueueSystem("127.0.0.1", this.port)) {
			new BatchDrainBenchmark(system, this.admin, this.report, backlog).run();
		}
		this.admin.flush();
	}

	/** Subscriptions' drains beside one subscription's ({@link SubscriptionDrainBenchmark}). */
	private void subscriptionDrain() {
		this.admin.flush();
		int backlog = switch (this.settings.mode()) {
			case "smoke" -> 2_000;
			default -> 100_000;
		};
		try (DelayQueueSystem system = new DelayQueueSystem("127.0.0.1", this.port)) {
			new SubscriptionDrainBenchmark(system, this.admin, this.report, backlog).run();
		}
		this.admin.flush();
	}

	static void log(String line) {
		System.out.println(String.format(Locale.ROOT, "%tT %s", System.currentTimeMillis(), line));
	}

	private static final class Redisson {

		static final String VERSION = version();

		private static String version() {
			Package pkg = org.redisson.Redisson.class.getPackage();
			String version = (pkg != null) ? pkg.getImplementationVersion() : null;
			return (version != null) ? version : "unknown";
		}

	}

}
