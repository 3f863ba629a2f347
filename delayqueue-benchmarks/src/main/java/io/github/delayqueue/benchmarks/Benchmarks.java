package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.benchmarks.QueueUnderTest.Message;
import io.github.delayqueue.benchmarks.Report.Better;
import io.github.delayqueue.embedded.RedisServerProcess;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures delayqueue and Redisson's {@code RDelayedQueue} side by side, on one Redis server that this harness
 * starts on loopback, in one run: schedule throughput and memory, steady-rate lateness, drain throughput, cost
 * against the number of waiting messages, the classic loss report, and redis-benchmark's ceiling for an
 * equivalent script; each throughput comes with its cost per message ({@link Costs}), and one drain runs through a
 * proxy that adds a millisecond to every round trip ({@link DelayingProxy}). Prints a markdown table and writes it,
 * with JSON, to the output folder.
 *
 * <pre>
 * mvn -B -q -Pbenchmark -DskipTests -pl delayqueue-benchmarks -am verify                        # quick, under 3 minutes
 * mvn -B -q -Pbenchmark -DskipTests -pl delayqueue-benchmarks -am verify -Dbenchmark.mode=full  # the documented table
 * mvn ... -Dbenchmark.mode=full -Dbenchmark.args=--huge                                          # adds 10 M waiting
 * </pre>
 * Options: {@code --mode=smoke|quick|full}, {@code --out=DIR}, {@code --huge}, {@code --only=SCENARIO,...}
 * (ceiling, schedule, lateness, drain, drain-random, drain-slow, size, loss, rate-limit), {@code --redis-server=PATH}
 * ({@link BenchmarkOptions}).
 */
public final class Benchmarks {

	static final List<String> SCENARIOS = List.of("ceiling", "schedule", "lateness", "drain", "drain-random",
			"drain-slow", "size", "loss", "rate-limit");

	private static final long DAY_MILLIS = TimeUnit.DAYS.toMillis(1);

	private static final int CONSUMER_THREADS = 8;

	private static final int FILL_CHUNK = 100_000;

	/** Time the slow-network drain's proxy adds in each direction. */
	private static final long SLOW_NETWORK_NANOS = TimeUnit.MICROSECONDS.toNanos(500);

	/** Seed of the random-order drain's shuffle: the same order in every run and for both systems. */
	private static final long DRAIN_SHUFFLE_SEED = 20_240_601L;

	private final Settings settings;

	private final String host;

	private final int port;

	private final Report report;

	private final LettuceConnectionFactory admin;

	private final Costs costs;

	private final List<BiFunction<String, Integer, QueueUnderTest>> systems = List.of(DelayQueueSystem::new,
			RedissonSystem::new);

	/** Which {@code redis-server} binary runs: the embedded one or the one given. */
	private final String redisBinary;

	private Double ceiling;

	private Benchmarks(Settings settings, String host, int port, Report report, String redisBinary) {
		this.redisBinary = redisBinary;
		this.settings = settings;
		this.host = host;
		this.port = port;
		this.report = report;
		this.admin = DelayQueueSystem.connectionFactory(host, port);
		this.costs = new Costs(port, this::info, report);
	}

	/**
	 * Runs the benchmark from the command line.
	 * @param args see {@link BenchmarkOptions}
	 */
	public static void main(String[] args) {
		BenchmarkOptions options = BenchmarkOptions.parse(args);
		String mode = options.mode();
		Path out = options.out();
		Report report = run(Settings.of(mode, options.huge()), out, options.scenarios(), options.redisServer());
		System.out.println();
		System.out.println(report.markdown());
		System.out.println("Written to " + out.toAbsolutePath().resolve("results-" + mode + ".{md,json}"));
		System.exit(0);
	}

	/**
	 * Starts a Redis server on a free loopback port, runs the scenarios against it and writes the report.
	 * @param settings the sizes
	 * @param out the folder for {@code results-<mode>.md} and {@code .json}
	 * @param scenarios the scenarios to run
	 * @param redisServer the {@code redis-server} binary to run; {@code null}: the embedded one
	 * @return the report
	 */
	static Report run(Settings settings, Path out, Set<String> scenarios, @Nullable Path redisServer) {
		Report report = new Report();
		long started = System.nanoTime();
		RedisServerProcess.Builder server = RedisServerProcess.onFreePort();
		if (redisServer != null) {
			server.binary(redisServer);
		}
		try (RedisServerProcess redis = server.start()) {
			Benchmarks benchmarks = new Benchmarks(settings, "127.0.0.1", redis.port(), report,
					(redisServer != null) ? redisServer.toString() : "the embedded binary");
			try {
				benchmarks.describeEnvironment();
				benchmarks.warmUp();
				for (String scenario : SCENARIOS) {
					if (scenarios.contains(scenario)) {
						benchmarks.checkQuiet(scenario);
						log("== " + scenario);
						benchmarks.run(scenario);
					}
				}
			}
			finally {
				benchmarks.admin.destroy();
			}
		}
		report.environment("run time", String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - started) / 1e9));
		report.write(out, settings.mode());
		return report;
	}

	private void run(String scenario) {
		switch (scenario) {
			case "ceiling" -> ceiling();
			case "schedule" -> scheduleThroughput();
			case "lateness" -> lateness();
			case "drain" -> drain(false);
			case "drain-random" -> drain(true);
			case "drain-slow" -> drainSlow();
			case "size" -> costAgainstSize();
			case "loss" -> lossReport();
			case "rate-limit" -> rateLimit();
			default -> throw new IllegalArgumentException(scenario);
		}
	}

	// ---------------------------------------------------------------- environment and load checks

	private void describeEnvironment() {
		Properties server = info("server");
		this.report.environment("mode", this.settings.mode());
		this.report.environment("date", Instant.now().toString());
		this.report.environment("machine", Runtime.getRuntime().availableProcessors() + " cores, "
				+ System.getProperty("os.name") + " " + System.getProperty("os.arch"));
		this.report.environment("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
		// the allocator matters: a build with libc's malloc (the embedded binary) spends more per script call than
		// one with jemalloc (Redis's default, and the distributions' builds)
		this.report.environment("redis", "redis-server " + server.getProperty("redis_version") + " ("
				+ this.redisBinary + ", " + info("memory").getProperty("mem_allocator", "allocator unknown").trim()
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
		int clients = Integer.parseInt(info("clients").getProperty("connected_clients", "0").trim());
		if (clients != 1) {
			this.report.note("Redis had " + clients + " clients at start, expected only the harness");
		}
	}

	/**
	 * Says so in the report when something else sends commands to Redis between scenarios (the load average is
	 * only checked at start: the run itself raises it).
	 */
	private void checkQuiet(String scenario) {
		long before = commandsProcessed();
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
		long commands = commandsProcessed() - before - 1;
		if (commands > 50) {
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

	private Properties info(String section) {
		try (RedisConnection connection = this.admin.getConnection()) {
			Properties properties = connection.serverCommands().info(section);
			return (properties != null) ? properties : new Properties();
		}
	}

	private long commandsProcessed() {
		return Long.parseLong(info("stats").getProperty("total_commands_processed", "0").trim());
	}

	private long usedMemory() {
		return Long.parseLong(info("memory").getProperty("used_memory", "0").trim());
	}

	private void flush() {
		try (RedisConnection connection = this.admin.getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	/**
	 * Runs each system's hot paths untimed first (single and bulk schedules, a drain the size of the measured one),
	 * so that neither is measured while its code is still being compiled by the JIT; meanwhile learns which commands
	 * its clients send ({@link Costs#learn}). A drain of 10,000 was not enough: the first measured drain then cost
	 * twice the client CPU per message of the one after it.
	 */
	private void warmUp() {
		int n = Math.min(this.settings.scheduleCount(), 10_000);
		for (BiFunction<String, Integer, QueueUnderTest> factory : this.systems) {
			flush();
			try (QueueUnderTest queue = factory.apply(this.host, this.port)) {
				long start = System.nanoTime();
				this.costs.learn(queue.name(), () -> {
					scheduleSingly(queue, n, 8, "warm-a-");
					queue.scheduleMany(farFuture("warm-b-", 0, n));
					flush();
					int drained = this.settings.drainCount();
					drain(queue, drained, false, () -> 0, drainLead(drained));
				});
				log(String.format(Locale.ROOT, "%s warmed up in %.1f s", queue.name(), seconds(start)));
			}
		}
		flush();
	}

	// ---------------------------------------------------------------- 6. the ceiling

	private void ceiling() {
		Path binary = redisBenchmark();
		if (this.settings.ceilingRequests() == 0 || binary == null) {
			this.report.note("redis-benchmark " + ((binary == null) ? "not found (PATH, or beside redis-server)"
					: "skipped in this mode") + ": no ceiling figure");
			return;
		}
		flush();
		String script = "local t = redis.call('TIME') "
				+ "if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then "
				+ "redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end return 1";
		List<String> command = List.of(binary.toString(), "-h", this.host, "-p", Integer.toString(this.port), "-n",
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
			flush();
		}
	}

	private static Path redisBenchmark() {
		List<Path> candidates = new ArrayList<>();
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(java.io.File.pathSeparator)) {
				candidates.add(Path.of(dir, "redis-benchmark"));
			}
		}
		try {
			candidates.add(RedisServerProcess.findBinary().resolveSibling("redis-benchmark"));
		}
		catch (RuntimeException ex) {
			// no server binary either
		}
		return candidates.stream().filter(Files::isExecutable).findFirst().orElse(null);
	}

	private String ofCeiling(double rate) {
		return (this.ceiling != null) ? String.format(Locale.ROOT, "%.0f%% of the ceiling", 100 * rate / this.ceiling)
				: "";
	}

	// ---------------------------------------------------------------- 1. schedule throughput and memory

	private void scheduleThroughput() {
		int n = this.settings.scheduleCount();
		Map<String, double[]> figures = new LinkedHashMap<>();
		Map<String, Costs.Cost[]> costs = new LinkedHashMap<>();
		for (BiFunction<String, Integer, QueueUnderTest> factory : this.systems) {
			double[] values = new double[4];
			Costs.Cost[] cost = new Costs.Cost[3];
			flush();
			long memoryBefore = usedMemory();
			try (QueueUnderTest queue = factory.apply(this.host, this.port)) {
				Costs.Interval interval = this.costs.start(queue.name());
				values[0] = scheduleSingly(queue, n, 1, "a-");
				cost[0] = interval.stop(n);
				values[3] = (usedMemory() - memoryBefore) / (double) n;
				flush();
				interval = this.costs.start(queue.name());
				values[1] = scheduleSingly(queue, n, 8, "b-");
				cost[1] = interval.stop(n);
				flush();
				List<Message> messages = farFuture("c-", 0, n);
				interval = this.costs.start(queue.name());
				long start = System.nanoTime();
				queue.scheduleMany(messages);
				values[2] = n / seconds(start);
				cost[2] = interval.stop(n);
				figures.put(queue.name(), values);
				costs.put(queue.name(), cost);
				log(queue.name() + ": " + java.util.Arrays.toString(values));
			}
			flush();
		}
		double[] ours = figures.get("delayqueue");
		double[] theirs = figures.get("Redisson");
		String section = "1. Schedule throughput (" + n + " messages due in a day, ~30 B payload)";
		this.report.row(section, "single-message API, 1 thread", "msgs/s", Better.HIGHER, ours[0], theirs[0],
				notes(ours[0], theirs[0]));
		this.report.row(section, "single-message API, 8 threads", "msgs/s", Better.HIGHER, ours[1], theirs[1],
				notes(ours[1], theirs[1]));
		this.report.row(section, "bulk: our batched API (1000 per call, 4 threads); Redisson: offerAsync, 512 in flight",
				"msgs/s", Better.HIGHER, ours[2], theirs[2], notes(ours[2], theirs[2]));
		this.report.row(section, "Redis memory per waiting message (INFO used_memory delta / n)", "bytes",
				Better.LOWER, ours[3], theirs[3], null);
		String[] labels = { "single-message API, 1 thread", "single-message API, 8 threads", "bulk" };
		for (int i = 0; i < labels.length; i++) {
			this.costs.rows(section, "schedule", labels[i], costs.get("delayqueue")[i], costs.get("Redisson")[i]);
		}
		this.report.detail("schedule", figures);
	}

	private String notes(double ours, double theirs) {
		if (this.ceiling == null) {
			return null;
		}
		return "ours " + ofCeiling(ours) + ", Redisson " + ofCeiling(theirs);
	}

	private double scheduleSingly(QueueUnderTest queue, int n, int threads, String prefix) {
		List<Thread> senders = new ArrayList<>();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long dueAt = System.currentTimeMillis() + DAY_MILLIS;
		long start = System.nanoTime();
		for (int t = 0; t < threads; t++) {
			int first = t;
			Thread sender = new Thread(() -> {
				try {
					for (int i = first; i < n; i += threads) {
						queue.schedule(Message.dueAtMicros(id(prefix, i), dueAt * 1000), DAY_MILLIS);
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			});
			sender.start();
			senders.add(sender);
		}
		joinAll(senders);
		double rate = n / seconds(start);
		if (failure.get() != null) {
			throw new IllegalStateException(queue.name() + " failed to schedule", failure.get());
		}
		return rate;
	}

	private static List<Message> farFuture(String prefix, int from, int to) {
		long dueAt = System.currentTimeMillis() + DAY_MILLIS;
		List<Message> messages = new ArrayList<>(to - from);
		for (int i = from; i < to; i++) {
			messages.add(Message.dueAtMicros(id(prefix, i), dueAt * 1000));
		}
		return messages;
	}

	// ---------------------------------------------------------------- 2. lateness at steady rates

	private void lateness() {
		int[][] runs = { { this.settings.lowRate(), this.settings.lowSeconds() },
				{ this.settings.highRate(), this.settings.highSeconds() } };
		for (int[] run : runs) {
			int rate = run[0];
			int total = rate * run[1];
			Map<String, Tally.Paced> results = new LinkedHashMap<>();
			for (BiFunction<String, Integer, QueueUnderTest> factory : this.systems) {
				flush();
				try (QueueUnderTest queue = factory.apply(this.host, this.port)) {
					results.put(queue.name(), paced(queue, "l" + rate + "-", total, rate, 8, CONSUMER_THREADS,
							Math.max(30_000, total / 500 * 1000L)));
				}
			}
			flush();
			Tally.Paced ours = results.get("delayqueue");
			Tally.Paced theirs = results.get("Redisson");
			String section = String.format(Locale.ROOT, "2. Lateness at %,d msgs/s for %d s (delays %d–%d ms, %d handler threads)",
					rate, run[1], this.settings.minDelayMillis(), this.settings.maxDelayMillis(), CONSUMER_THREADS);
			latenessRows(section, ours, theirs);
			this.report.row(section, "send rate achieved", "msgs/s", Better.HIGHER, ours.sendRate(), theirs.sendRate(),
					"the harness's 8 senders, single-message API");
			this.report.detail("lateness-" + rate, results);
		}
	}

	private void latenessRows(String section, Tally.Paced ours, Tally.Paced theirs) {
		this.report.row(section, "lateness p50", "ms", Better.LOWER, ms(ours.lateness().p50()),
				ms(theirs.lateness().p50()), null);
		this.report.row(section, "lateness p99", "ms", Better.LOWER, ms(ours.lateness().p99()),
				ms(theirs.lateness().p99()), null);
		this.report.row(section, "lateness p99.9", "ms", Better.LOWER, ms(ours.lateness().p999()),
				ms(theirs.lateness().p999()), null);
		this.report.row(section, "lateness max", "ms", Better.LOWER, ms(ours.lateness().max()),
				ms(theirs.lateness().max()), null);
		// where ours comes from: the due time the script stored (its TIME plus the delay, less the call's time before
		// it was sent) against the intended one,
		// then the handler start against the stored due time (Redisson's handlers are not told its due time)
		if (ours.storedLate().count() > 0) {
			this.report.row(section, "of which: stored due time − intended due time (the schedule call), p50", "ms",
					Better.LOWER, ms(ours.storedLate().p50()), null, "p99 " + ms(ours.storedLate().p99()) + " ms");
			this.report.row(section, "of which: handler start − stored due time (wake-up, claim, hand-off), p50", "ms",
					Better.LOWER, ms(ours.afterStored().p50()), null, "p99 " + ms(ours.afterStored().p99()) + " ms");
		}
		this.report.row(section, "lost", "messages", Better.LOWER, (double) ours.lost(), (double) theirs.lost(),
				"of " + ours.sent());
		this.report.row(section, "duplicated", "messages", Better.LOWER, (double) ours.duplicated(),
				(double) theirs.duplicated(), null);
		this.report.row(section, "early (before the intended due time)", "messages", Better.LOWER,
				(double) ours.early(), (double) theirs.early(), (theirs.early() == 0) ? null
						: "Redisson sets a due time on the client to the millisecond (the current millisecond plus the "
								+ "delay), up to 1 ms before the request plus the delay");
	}

	/**
	 * Sends {@code total} messages at a steady rate with random delays, consumes them, and counts.
	 */
	private Tally.Paced paced(QueueUnderTest queue, String prefix, int total, int rate, int senders, int consumerThreads,
			long extraWaitMillis) {
		Tally tally = new Tally();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long sendNanos;
		try (QueueUnderTest.Consumer consumer = queue.consume(consumerThreads, tally::handle)) {
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < senders; t++) {
				int first = t;
				Thread sender = new Thread(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					try {
						for (int i = first; i < total; i += senders) {
							long target = start + (long) (i * (1e9 / rate));
							long wait = target - System.nanoTime();
							if (wait > 0) {
								LockSupport.parkNanos(wait);
							}
							long delay = random.nextLong(this.settings.minDelayMillis(),
									this.settings.maxDelayMillis() + 1);
							// the intended due time to the microsecond: the moment of the request plus the delay (read
							// to the millisecond, it would be up to 1 ms before the request, and late deliveries would
							// look up to 1 ms later than they are)
							long dueMicros = nowMicros() + delay * 1000;
							queue.schedule(Message.dueAtMicros(id(prefix, i), dueMicros), delay);
						}
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
					}
				});
				sender.start();
				threads.add(sender);
			}
			joinAll(threads);
			sendNanos = System.nanoTime() - start;
			if (failure.get() != null) {
				throw new IllegalStateException(queue.name() + " failed to schedule", failure.get());
			}
			long deadline = System.nanoTime()
					+ TimeUnit.MILLISECONDS.toNanos(this.settings.maxDelayMillis() + extraWaitMillis);
			while (tally.unique.get() < total && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
			// a moment more, so that a duplicate right behind the last message is seen
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
		}
		Tally.Paced result = tally.result(total, total / (sendNanos / 1e9));
		log(queue.name() + " paced " + prefix + ": " + result);
		return result;
	}

	// ---------------------------------------------------------------- 3. drain

	/**
	 * Stores {@code drainCount} messages due within one second, then measures how fast they are handled.
	 * @param randomOrder {@code false}: stored in due order (Redisson's best case: its transfer script LREMs
	 * each due message from a list kept in insertion order, so it finds each one at the head); {@code true}: the
	 * same messages and due times, stored in an order shuffled with a fixed seed (each LREM scans far)
	 */
	private void drain(boolean randomOrder) {
		String section = randomOrder
				? String.format(Locale.ROOT,
						"3b. Drain in random order: %,d messages due within one second, %d handler threads",
						this.settings.drainCount(), CONSUMER_THREADS)
				: String.format(Locale.ROOT, "3. Drain: %,d messages due within one second, %d handler threads",
						this.settings.drainCount(), CONSUMER_THREADS);
		drain(section, randomOrder ? "drain-random" : "drain", randomOrder, this.port, () -> 0,
				drainLead(this.settings.drainCount()), null,
				randomOrder ? "stored in a shuffled order (fixed seed), not in due order" : null);
	}

	/**
	 * The drain in due order with every connection of both systems (commands, pub/sub, blocking pops, and the
	 * storing of the messages) going through a proxy that delays each chunk by 0.5 ms in each direction. Storing
	 * through it is slower (Redisson's offers most), so the first message is due later; the measured interval starts
	 * only then, when all are stored.
	 */
	/** A topic limited to a rate, drained by two instances: the rate they deliver at ({@link RateLimitBenchmark}). */
	private void rateLimit() {
		flush();
		Duration window = switch (this.settings.mode()) {
			case "smoke" -> Duration.ofSeconds(2);
			case "quick" -> Duration.ofSeconds(10);
			default -> Duration.ofSeconds(30);
		};
		try (DelayQueueSystem system = new DelayQueueSystem(this.host, this.port)) {
			new RateLimitBenchmark(system, this.report, 500, window).run();
		}
		flush();
	}

	private void drainSlow() {
		long direct = DelayingProxy.medianPingMicros(this.port, 50);
		try (DelayingProxy proxy = new DelayingProxy(this.port, SLOW_NETWORK_NANOS)) {
			long through = DelayingProxy.medianPingMicros(proxy.port(), 50);
			String rtt = String.format(Locale.ROOT, "every connection goes through a proxy adding %.1f ms each way; "
					+ "PING median of 50: %.3f ms through it, %.3f ms direct (+%.3f ms)", SLOW_NETWORK_NANOS / 1e6,
					through / 1e3, direct / 1e3, (through - direct) / 1e3);
			String section = String.format(Locale.ROOT, "3c. Drain over a slow network: %,d messages due within one "
					+ "second, due order, ~1 ms added round trip, %d handler threads", this.settings.drainCount(),
					CONSUMER_THREADS);
			int n = this.settings.drainCount();
			drain(section, "drain-slow", false, proxy.port(), proxy::cpuNanos, drainLead(n) + n / 5, rtt,
					"stored through the proxy too, before the measured interval");
			this.report.detail("drain-slow-network", Map.of("pingMicrosDirect", direct, "pingMicrosThroughProxy",
					through, "connectionsThroughProxy", proxy.connections()));
		}
	}

	private void drain(String section, String key, boolean randomOrder, int port, LongSupplier excludedCpuNanos,
			long leadMillis, String throughputNote, String storeNote) {
		int n = this.settings.drainCount();
		Map<String, Map<String, Object>> results = new LinkedHashMap<>();
		for (BiFunction<String, Integer, QueueUnderTest> factory : this.systems) {
			flush();
			try (QueueUnderTest queue = factory.apply(this.host, port)) {
				results.put(queue.name(), drain(queue, n, randomOrder, excludedCpuNanos, leadMillis));
			}
		}
		flush();
		Map<String, Object> ours = results.get("delayqueue");
		Map<String, Object> theirs = results.get("Redisson");
		double oursRate = (double) ours.get("throughput");
		double theirRate = (double) theirs.get("throughput");
		String ceilingNote = notes(oursRate, theirRate);
		this.report.row(section, "throughput, first due to last handled", "msgs/s", Better.HIGHER, oursRate, theirRate,
				(throughputNote == null) ? ceilingNote
						: (ceilingNote == null) ? throughputNote : throughputNote + "; " + ceilingNote);
		Tally.Paced oursPaced = (Tally.Paced) ours.get("tally");
		Tally.Paced theirPaced = (Tally.Paced) theirs.get("tally");
		latenessRows(section, oursPaced, theirPaced);
		this.report.row(section, "time to store them (bulk form, as in 1.)", "s", Better.LOWER,
				(double) ours.get("fillSeconds"), (double) theirs.get("fillSeconds"), storeNote);
		this.costs.rows(section, key, "drain", (Costs.Cost) ours.get("cost"), (Costs.Cost) theirs.get("cost"));
		this.report.detail(key, results);
	}

	/** Time from the consumer's start to the first due message: enough to store them all. */
	private static long drainLead(int n) {
		return Math.max(2_000, n / 10);
	}

	private Map<String, Object> drain(QueueUnderTest queue, int n, boolean randomOrder, LongSupplier excludedCpuNanos,
			long leadMillis) {
		Tally tally = new Tally();
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("order", randomOrder ? "random (seed " + DRAIN_SHUFFLE_SEED + ")" : "due");
		long firstDue;
		try (QueueUnderTest.Consumer consumer = queue.consume(CONSUMER_THREADS, tally::handle)) {
			firstDue = System.currentTimeMillis() + leadMillis;
			List<Message> messages = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				long dueAt = firstDue + (i * 1000L) / n;
				messages.add(new Message(id("d-", i), id("d-", i) + "|" + dueAt * 1000, dueAt));
			}
			if (randomOrder) {
				Collections.shuffle(messages, new Random(DRAIN_SHUFFLE_SEED));
			}
			long start = System.nanoTime();
			queue.scheduleMany(messages);
			result.put("fillSeconds", seconds(start));
			if (System.currentTimeMillis() > firstDue) {
				this.report.note(queue.name() + ": storing the drain's messages took longer than planned; some were "
						+ "due before all were stored");
			}
			long idle = firstDue - 100 - System.currentTimeMillis();
			if (idle > 0) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(idle));
			}
			Costs.Interval interval = this.costs.start(queue.name(), excludedCpuNanos);
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
					firstDue - System.currentTimeMillis() + 1_000 + Math.max(60_000, n * 2L));
			while (tally.unique.get() < n && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
			result.put("cost", interval.stop(tally.unique.get()));
		}
		double seconds = (tally.lastHandledMicros.get() - firstDue * 1000.0) / 1e6;
		result.put("throughput", tally.unique.get() / Math.max(seconds, 1e-3));
		result.put("tally", tally.result(n, 0));
		log(queue.name() + (randomOrder ? " drain in random order: " : " drain: ") + result);
		return result;
	}

	// ---------------------------------------------------------------- 4. cost against size

	private void costAgainstSize() {
		for (int size : this.settings.sizes()) {
			Map<String, Map<String, Samples.Summary>> results = new LinkedHashMap<>();
			for (BiFunction<String, Integer, QueueUnderTest> factory : this.systems) {
				flush();
				try (QueueUnderTest queue = factory.apply(this.host, this.port)) {
					results.put(queue.name(), costAt(queue, size));
				}
			}
			flush();
			Map<String, Samples.Summary> ours = results.get("delayqueue");
			Map<String, Samples.Summary> theirs = results.get("Redisson");
			String section = String.format(Locale.ROOT, "4. Cost with %,d messages waiting", size);
			for (String op : List.of("cancel", "schedule", "claim", "deliver")) {
				Samples.Summary o = ours.get(op);
				Samples.Summary t = theirs.get(op);
				String name = switch (op) {
					case "cancel" -> "cancel one waiting message (Redisson: remove)";
					case "schedule" -> "schedule one message";
					case "claim" -> "claim one due message (the claim script alone; Redisson has no such call)";
					default -> "deliver one due message: schedule with no delay → handler";
				};
				String samples = "samples: " + ((o != null) ? o.count() : 0) + " / " + ((t != null) ? t.count() : 0);
				this.report.row(section, name + ", p50", "ms", Better.LOWER, (o != null) ? ms(o.p50()) : null,
						(t != null) ? ms(t.p50()) : null, samples);
				this.report.row(section, name + ", p99", "ms", Better.LOWER, (o != null) ? ms(o.p99()) : null,
						(t != null) ? ms(t.p99()) : null, null);
			}
			this.report.detail("size-" + size, results);
		}
	}

	private Map<String, Samples.Summary> costAt(QueueUnderTest queue, int size) {
		long start = System.nanoTime();
		for (int from = 0; from < size; from += FILL_CHUNK) {
			queue.scheduleMany(farFuture("w-", from, Math.min(size, from + FILL_CHUNK)));
		}
		log(String.format(Locale.ROOT, "%s: %,d waiting after %.1f s", queue.name(), size, seconds(start)));
		Map<String, Samples.Summary> result = new LinkedHashMap<>();
		int samples = this.settings.latencySamples();
		if (queue instanceof DelayQueueSystem ours) {
			Samples claim = new Samples();
			for (int i = 0; i < samples; i++) {
				claim.add(ours.claimOneNanos(id("k-", i)) / 1000);
			}
			result.put("claim", claim.summary());
		}
		Samples schedule = new Samples();
		List<Message> scheduled = farFuture("s-", 0, samples);
		for (Message message : scheduled) {
			long begin = System.nanoTime();
			queue.schedule(message, DAY_MILLIS);
			schedule.add((System.nanoTime() - begin) / 1000);
		}
		result.put("schedule", schedule.summary());

		Samples cancel = new Samples();
		boolean slow = !(queue instanceof DelayQueueSystem);
		int cancels = slow ? this.settings.slowSamples() : samples;
		long budget = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		int missed = 0;
		for (int i = 0; i < cancels && System.nanoTime() < budget; i++) {
			long begin = System.nanoTime();
			boolean cancelled = queue.cancel(scheduled.get(i));
			cancel.add((System.nanoTime() - begin) / 1000);
			if (!cancelled && !slow) {
				throw new IllegalStateException(queue.name() + " did not cancel " + scheduled.get(i).id());
			}
			missed += cancelled ? 0 : 1;
		}
		if (missed > 0) {
			// Redisson's remove answered false for a message it holds (seen once under load): noted, not fatal
			this.report.note(String.format(Locale.ROOT, "%s: remove returned false for %d of the %,d waiting messages "
					+ "it was asked to cancel", queue.name(), missed, cancel.summary().count()));
		}
		result.put("cancel", cancel.summary());

		Samples deliver = new Samples();
		AtomicReference<CountDownLatch> arrived = new AtomicReference<>();
		try (QueueUnderTest.Consumer consumer = queue.consume(CONSUMER_THREADS, (payload, storedDue) -> {
			CountDownLatch latch = arrived.get();
			if (latch != null && Message.idOf(payload).startsWith("n-")) {
				latch.countDown();
			}
		})) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
			for (int i = 0; i < Math.min(50, samples); i++) {
				CountDownLatch latch = new CountDownLatch(1);
				arrived.set(latch);
				long begin = System.nanoTime();
				queue.schedule(Message.dueAtMicros(id("n-", i), System.currentTimeMillis() * 1000), 0);
				try {
					if (!latch.await(30, TimeUnit.SECONDS)) {
						this.report.note(queue.name() + ": a due message was not delivered within 30 s with " + size
								+ " waiting");
						break;
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
				deliver.add((System.nanoTime() - begin) / 1000);
			}
		}
		result.put("deliver", deliver.summary());
		log(queue.name() + " at " + size + ": " + result);
		return result;
	}

	// ---------------------------------------------------------------- 5. the classic loss report

	private void lossReport() {
		Map<String, List<Tally.Paced>> results = new LinkedHashMap<>();
		for (BiFunction<String, Integer, QueueUnderTest> factory : this.systems) {
			flush();
			try (QueueUnderTest queue = factory.apply(this.host, this.port)) {
				List<Tally.Paced> rounds = new ArrayList<>();
				for (int round = 1; round <= this.settings.lossRounds(); round++) {
					// one consumer per round, one handler thread, messages sent 10 ms apart
					rounds.add(paced(queue, "r" + round + "-", this.settings.lossMessages(), 100, 1, 1, 10_000));
				}
				results.put(queue.name(), rounds);
			}
		}
		flush();
		String section = String.format(Locale.ROOT, "5. Loss report: %d rounds × %,d messages sent 10 ms apart, delays %d–%d ms, a new consumer each round",
				this.settings.lossRounds(), this.settings.lossMessages(), this.settings.minDelayMillis(),
				this.settings.maxDelayMillis());
		for (int round = 0; round < this.settings.lossRounds(); round++) {
			Tally.Paced ours = results.get("delayqueue").get(round);
			Tally.Paced theirs = results.get("Redisson").get(round);
			String r = "round " + (round + 1) + ": ";
			this.report.row(section, r + "received", "messages", Better.HIGHER, (double) ours.received(),
					(double) theirs.received(), "of " + ours.sent());
			this.report.row(section, r + "lost", "messages", Better.LOWER, (double) ours.lost(), (double) theirs.lost(),
					null);
			this.report.row(section, r + "duplicated", "messages", Better.LOWER, (double) ours.duplicated(),
					(double) theirs.duplicated(), null);
			this.report.row(section, r + "max |actual − intended delay|", "ms", Better.LOWER,
					ms(ours.maxErrorMicros()), ms(theirs.maxErrorMicros()), null);
		}
		this.report.detail("loss", results);
	}

	// ---------------------------------------------------------------- helpers

	static void awaitAll(List<Future<?>> futures) {
		for (Future<?> future : futures) {
			try {
				future.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException("A batch failed", ex.getCause());
			}
		}
	}

	private static void joinAll(List<Thread> threads) {
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
	}

	private static String id(String prefix, int i) {
		return prefix + String.format(Locale.ROOT, "%07d", i);
	}

	static long nowMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
	}

	private static double seconds(long startNanos) {
		return (System.nanoTime() - startNanos) / 1e9;
	}

	private static Double ms(long micros) {
		return Math.round(micros / 10.0) / 100.0;
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
