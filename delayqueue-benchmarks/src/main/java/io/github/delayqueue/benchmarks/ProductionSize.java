package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.LongSupplier;

import io.github.delayqueue.MessagePage;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.benchmarks.QueueUnderTest.Message;
import io.github.delayqueue.benchmarks.RedisWatch.Operation;
import io.github.delayqueue.benchmarks.Report.Better;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The production-size scenario: for each size of the run (10 k, 1 M and, with {@code --huge}, 10 M waiting), what a
 * waiting message costs Redis (memory, and CPU to store it), what the operations an operator and the dashboard use
 * cost at that size (cancel, look-up, the first page and page 10,000 of the waiting messages, the dashboard's exact
 * timeline), and Redis's longest command while the admin operations that could hold it run: replay and purge of up
 * to 1 M dead letters, a paused topic resumed with up to 1 M due at once, paging to page 10,000. Redisson beside us
 * where its {@code RDelayedQueue} has the operation (its {@code clear()} stands for the purge, and 1 M offers due at
 * once for the resumed topic). Redis's longest command and its CPU per call come from {@link RedisWatch}.
 */
final class ProductionSize {

	/** The most dead letters (and due messages) the admin operations handle. */
	private static final int MAX_ADMIN = 1_000_000;

	/**
	 * The most messages due at once Redisson drains: it delivers a few thousand a second on a busy machine, so a
	 * million would take the run's hour alone.
	 */
	private static final int MAX_REDISSON_BACKLOG = 100_000;

	private static final int PAGE = 100;

	/** The messages due at once among those waiting whose claims are measured. */
	private static final int CLAIMED = 10_000;

	/** The requests timed per figure of the dashboard over HTTP. */
	private static final int DASHBOARD_SAMPLES = 50;

	private static final int DEEP_PAGE = 10_000;

	private static final String DEAD_TOPIC = "bench-dead";

	private static final int CHUNK = RedisMessageStore.CHUNK_SIZE;

	private final String host;

	private final int port;

	private final AdminConnection admin;

	private final Report report;

	private final Settings settings;

	/** What Redis does during each operation. */
	private final RedisWatch redis;

	ProductionSize(String host, int port, AdminConnection admin, Report report, Settings settings) {
		this.host = host;
		this.port = port;
		this.admin = admin;
		this.report = report;
		this.settings = settings;
		this.redis = new RedisWatch(host, port, admin);
	}

	void run() {
		try {
			runSizes();
		}
		finally {
			this.redis.close();
		}
	}

	private void runSizes() {
		// -Dproduction.sizes=1000000 and -Dproduction.redisson=false narrow a long run (the figures keep their shape)
		String sizes = System.getProperty("production.sizes");
		List<Integer> chosen = (sizes != null)
				? java.util.Arrays.stream(sizes.split(",")).map(String::trim).map(Integer::valueOf).toList()
				: this.settings.sizes();
		boolean withRedisson = !"false".equals(System.getProperty("production.redisson"));
		for (int size : chosen) {
			String section = String.format(Locale.ROOT, "8. Production size: %,d waiting", size);
			Figures ours = ours(size);
			Figures theirs = withRedisson ? redissonOrAbsent(size) : Figures.absent(size);
			ours.rows(section, theirs, this.report);
			this.report.detail("production-" + size, java.util.Map.of("delayqueue", ours, "Redisson", theirs));
			// a long run's figures so far, in case it is cut short
			Benchmarks.log("figures so far:\n" + this.report.markdown());
		}
	}

	// ---------------------------------------------------------------- delayqueue

	private Figures ours(int size) {
		this.admin.flush();
		Figures figures = new Figures();
		int admin = Math.min(size, MAX_ADMIN);
		figures.backlog = admin;
		figures.size = size;
		LettuceConnectionFactory factory = DelayQueueSystem.connectionFactory(this.host, this.port);
		ExecutorService senders = Executors.newFixedThreadPool(4);
		// dead letters kept up to the admin operations' size (the default keeps 10,000)
		RedisMessageStore store = new RedisMessageStore(factory, "dq",
				new DeadLetterPolicy(2L * MAX_ADMIN, Duration.ofDays(14)));
		store.setStoredFormat(DelayQueueSystem.storedFormat);
		RedisDelayedQueue queue = new RedisDelayedQueue(store, new JacksonPayloadConverter());
		RedisDelayedQueueAdmin queueAdmin = new RedisDelayedQueueAdmin(store, new JacksonPayloadConverter());
		try (DelayQueueSystem system = new DelayQueueSystem(this.host, this.port)) {
			warmUp(system, queue, queueAdmin, store, senders);
			// storing: memory, Redis CPU and the longest command per message, through the batched API
			List<Message> waiting = spreadOverADay(size);
			RedisWatch.Watch fill = this.redis.start();
			long start = System.nanoTime();
			for (int from = 0; from < size; from += 100_000) {
				system.scheduleMany(waiting.subList(from, Math.min(size, from + 100_000)));
			}
			figures.fillRate = size / Workloads.seconds(start);
			figures.operations.add(fill.stop("fill", size));
			log("delayqueue", size, "stored at " + Math.round(figures.fillRate) + " msgs/s");

			int samples = Math.min(this.settings.latencySamples(), 200);
			figures.schedule = latency(samples, (i) -> system.schedule(Message.dueAtMicros(Workloads.id("s-", i),
					(System.currentTimeMillis() + Workloads.DAY_MILLIS) * 1000), Workloads.DAY_MILLIS));
			figures.cancel = latency(samples, (i) -> {
				if (!system.cancel(new Message(Workloads.id("s-", i), "", 0))) {
					throw new IllegalStateException("Not cancelled: s-" + i);
				}
			});
			figures.lookup = latency(samples, (i) -> queueAdmin
				.lookup(DelayQueueSystem.TOPIC, waiting.get(ThreadLocalRandom.current().nextInt(size)).id())
				.orElseThrow());
			figures.firstPage = latency(samples,
					(i) -> queueAdmin.listWaiting(DelayQueueSystem.TOPIC, WaitingQuery.first(PAGE)));
			figures.timelineDay = latency(samples, (i) -> queueAdmin.countDue(DelayQueueSystem.TOPIC, Instant.now(),
					Instant.now().plus(Duration.ofDays(1)), 24));
			figures.timelineWeek = latency(samples, (i) -> queueAdmin.countDue(DelayQueueSystem.TOPIC, Instant.now(),
					Instant.now().plus(Duration.ofDays(7)), 28));
			figures.stats = latency(samples, (i) -> queueAdmin.stats(DelayQueueSystem.TOPIC));

			// the dashboard as users run it: its page and the reads of its API, over HTTP
			try (DashboardTimings dashboard = new DashboardTimings(this.host, this.port)) {
				figures.dashboard = dashboard.time(DelayQueueSystem.TOPIC, waiting.get(size / 2).id(),
						DASHBOARD_SAMPLES);
			}
			log("delayqueue", size, "dashboard over HTTP: " + figures.dashboard);

			// claims with the topic full: messages due now among the waiting, drained by one consumer of 8 handlers
			claims(figures, system, (handler) -> system.consume(DelayQueueSystem.TOPIC, Workloads.CONSUMER_THREADS,
					handler));
			log("delayqueue", size, "claimed " + CLAIMED + " due among the waiting at " + Math.round(figures.claimRate)
					+ " msgs/s");

			// paging by cursor to page 10,000 (or the last page of a smaller topic): every page costs the same
			RedisWatch.Watch paging = this.redis.start();
			int pages = Math.min(DEEP_PAGE, size / PAGE);
			MessagePage page = queueAdmin.listWaiting(DelayQueueSystem.TOPIC, WaitingQuery.first(PAGE));
			long deepest = 0;
			for (int i = 2; i <= pages && page.nextCursor() != null; i++) {
				long begin = System.nanoTime();
				page = queueAdmin.listWaiting(DelayQueueSystem.TOPIC, WaitingQuery.first(PAGE).after(page.nextCursor()));
				deepest = (System.nanoTime() - begin) / 1000;
			}
			figures.deepPage = deepest;
			figures.deepPageNumber = pages;
			figures.operations.add(paging.stop("paging", pages));

			// dead letters: made by claims (their expiry passed), then replayed into a paused topic
			bury(queue, store, senders, admin);
			queueAdmin.pause(DEAD_TOPIC);
			RedisWatch.Watch replay = this.redis.start();
			start = System.nanoTime();
			long replayed = queueAdmin.replayDeadLetters(DEAD_TOPIC);
			figures.replaySeconds = Workloads.seconds(start);
			figures.operations.add(replay.stop("replay", admin));
			check(replayed == admin, "replayed " + replayed + " of " + admin);
			log("delayqueue", size, String.format(Locale.ROOT, "replayed %,d in %.1f s", replayed, figures.replaySeconds));

			// the paused topic resumed with them all due at once, drained by one consumer of 8 handlers
			AtomicLong delivered = new AtomicLong();
			try (QueueUnderTest.Consumer consumer = system.consume(DEAD_TOPIC, Workloads.CONSUMER_THREADS,
					(payload, due) -> delivered.incrementAndGet())) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
				check(delivered.get() == 0, "delivered while paused");
				RedisWatch.Watch resume = this.redis.start();
				start = System.nanoTime();
				queueAdmin.resume(DEAD_TOPIC);
				awaitCount(delivered::get, admin, Duration.ofMinutes(20));
				figures.resumeRate = admin / Workloads.seconds(start);
				figures.operations.add(resume.stop("resume", admin));
			}
			log("delayqueue", size, "resumed and drained at " + Math.round(figures.resumeRate) + " msgs/s");

			// dead letters again, purged
			bury(queue, store, senders, admin);
			RedisWatch.Watch purge = this.redis.start();
			start = System.nanoTime();
			long purged = queueAdmin.purgeDeadLetters(DEAD_TOPIC);
			figures.purgeSeconds = Workloads.seconds(start);
			figures.operations.add(purge.stop("purge", admin));
			check(purged == admin, "purged " + purged + " of " + admin);
			log("delayqueue", size, String.format(Locale.ROOT, "purged %,d in %.1f s", purged, figures.purgeSeconds));
		}
		finally {
			senders.shutdownNow();
			factory.destroy();
			this.admin.flush();
		}
		return figures;
	}

	/**
	 * Runs every operation once on a small topic, untimed, so that Redis has loaded each script ({@code EVAL} compiles
	 * a script once per server: a one-off, not what an operation costs) and the JIT has seen the code.
	 */
	private void warmUp(DelayQueueSystem system, RedisDelayedQueue queue, RedisDelayedQueueAdmin queueAdmin,
			RedisMessageStore store, ExecutorService senders) {
		bury(queue, store, senders, 2_000);
		queueAdmin.pause(DEAD_TOPIC);
		queueAdmin.replayDeadLetters(DEAD_TOPIC);
		AtomicLong delivered = new AtomicLong();
		try (QueueUnderTest.Consumer consumer = system.consume(DEAD_TOPIC, Workloads.CONSUMER_THREADS,
				(payload, due) -> delivered.incrementAndGet())) {
			queueAdmin.resume(DEAD_TOPIC);
			awaitCount(delivered::get, 2_000, Duration.ofMinutes(5));
		}
		bury(queue, store, senders, 2_000);
		queueAdmin.purgeDeadLetters(DEAD_TOPIC);
		// another topic than the measured one, and no flush after: the topics stay known to this process
		String warm = "bench-warm";
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2_000; i++) {
			requests.add(ScheduleRequest.builder(warm, "x").id("warm-" + i).delay(Duration.ofHours(1 + i % 5)).build());
		}
		queue.scheduleAll(requests);
		queue.cancel(warm, "warm-1");
		queueAdmin.lookup(warm, "warm-7");
		MessagePage page = queueAdmin.listWaiting(warm, WaitingQuery.first(PAGE));
		queueAdmin.listWaiting(warm, WaitingQuery.first(PAGE).after(page.nextCursor()));
		queueAdmin.countDue(warm, Instant.now(), Instant.now().plus(Duration.ofDays(1)), 24);
		queueAdmin.stats(warm);
		system.schedule(Message.dueAtMicros("warm", Workloads.nowMicros() + 3_600_000_000L), 3_600_000);
		system.cancel(new Message("warm", "", 0));
	}

	/** Stores {@code count} messages due now that expire at once, and claims until each is a dead letter. */
	private void bury(RedisDelayedQueue queue, RedisMessageStore store, ExecutorService senders, int count) {
		Instant due = Instant.now();
		List<Future<?>> calls = new ArrayList<>();
		for (int from = 0; from < count; from += CHUNK) {
			int first = from;
			calls.add(senders.submit(() -> {
				List<ScheduleRequest> requests = new ArrayList<>(CHUNK);
				for (int i = first; i < Math.min(count, first + CHUNK); i++) {
					requests.add(ScheduleRequest.builder(DEAD_TOPIC, "x")
						.id(Workloads.id("d-", i))
						.dueAt(due)
						.expiresAt(due.plusMillis(1))
						.build());
				}
				queue.scheduleAll(requests);
			}));
		}
		for (Future<?> call : calls) {
			try {
				call.get();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not store the messages to bury", ex);
			}
		}
		LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		long dead = 0;
		while (dead < count) {
			store.leases().claim(DEAD_TOPIC, CHUNK, 60_000, 5);
			dead = store.messages().stats(DEAD_TOPIC).dead();
		}
	}

	// ---------------------------------------------------------------- Redisson

	/**
	 * Redisson's figures, or none where it failed: its {@code remove} and {@code contains} are scripts that scan the
	 * whole queue, and at a million waiting they run longer than its client waits, so the commands queued behind them
	 * can time out (its pool exhausted); the run goes on with ours, and the report says what failed.
	 */
	private Figures redissonOrAbsent(int size) {
		try {
			return redisson(size);
		}
		catch (RuntimeException ex) {
			String failure = String.format(Locale.ROOT, "Redisson at %,d waiting failed: %s", size, ex.getMessage());
			Benchmarks.log(failure);
			this.report.note(failure.length() > 300 ? failure.substring(0, 300) + "…" : failure);
			this.admin.flush();
			return Figures.absent(size);
		}
	}

	private Figures redisson(int size) {
		this.admin.flush();
		Figures figures = new Figures();
		int admin = Math.min(size, MAX_REDISSON_BACKLOG);
		figures.backlog = admin;
		figures.size = size;
		try (RedissonSystem system = new RedissonSystem(this.host, this.port)) {
			List<Message> waiting = spreadOverADay(size);
			RedisWatch.Watch fill = this.redis.start();
			long start = System.nanoTime();
			system.scheduleMany(waiting);
			figures.fillRate = size / Workloads.seconds(start);
			figures.operations.add(fill.stop("fill", size));
			log("Redisson", size, "stored at " + Math.round(figures.fillRate) + " msgs/s");

			int samples = Math.min(this.settings.latencySamples(), 200);
			List<Message> scheduled = new ArrayList<>();
			figures.schedule = latency(samples, (i) -> {
				Message message = Message.dueAtMicros(Workloads.id("s-", i),
						(System.currentTimeMillis() + Workloads.DAY_MILLIS) * 1000);
				scheduled.add(message);
				system.schedule(message, Workloads.DAY_MILLIS);
			});
			// claims with the queue full, as ours (before the scans below, which can leave Redis busy after them)
			claims(figures, system, (handler) -> system.consume(Workloads.CONSUMER_THREADS, handler));
			log("Redisson", size, "claimed " + CLAIMED + " due among the waiting at " + Math.round(figures.claimRate)
					+ " msgs/s");

			// its remove and contains scan the whole queue: a few samples, bounded in time
			int slow = (size > MAX_ADMIN) ? 0 : this.settings.slowSamples();
			figures.cancel = bounded(slow, (i) -> system.cancel(scheduled.get(i)));
			figures.lookup = bounded(slow, (i) -> system.contains(scheduled.get(i)));

			// its clear(): every waiting message deleted at once
			RedisWatch.Watch clear = this.redis.start();
			start = System.nanoTime();
			system.clear();
			figures.purgeSeconds = Workloads.seconds(start);
			figures.operations.add(clear.stop("purge", size));

			// a backlog due at once, drained by one consumer of 8 handlers (its nearest to a resumed topic)
			AtomicLong delivered = new AtomicLong();
			long now = System.currentTimeMillis() * 1000;
			List<Message> due = new ArrayList<>(admin);
			for (int i = 0; i < admin; i++) {
				due.add(Message.dueAtMicros(Workloads.id("d-", i), now + 2_000_000));
			}
			system.scheduleMany(due);
			RedisWatch.Watch resume = this.redis.start();
			start = System.nanoTime();
			try (QueueUnderTest.Consumer consumer = system.consume(Workloads.CONSUMER_THREADS,
					(payload, storedDue) -> delivered.incrementAndGet())) {
				awaitCount(delivered::get, admin, Duration.ofMinutes(20));
				figures.resumeRate = admin / Workloads.seconds(start);
			}
			figures.operations.add(resume.stop("resume", admin));
			log("Redisson", size, "drained a backlog due at once at " + Math.round(figures.resumeRate) + " msgs/s");
		}
		finally {
			this.admin.flush();
		}
		return figures;
	}

	// ---------------------------------------------------------------- measuring

	/**
	 * Stores {@link #CLAIMED} messages due now into the topic that holds the waiting ones, and drains them with a
	 * consumer: Redis CPU per delivered message, the claim's cost with the topic at its size.
	 */
	private void claims(Figures figures, QueueUnderTest system,
			Function<QueueUnderTest.Handler, QueueUnderTest.Consumer> consumers) {
		long now = Workloads.nowMicros();
		List<Message> due = new ArrayList<>(CLAIMED);
		for (int i = 0; i < CLAIMED; i++) {
			due.add(Message.dueAtMicros(Workloads.id("c-", i), now));
		}
		system.scheduleMany(due);
		AtomicLong delivered = new AtomicLong();
		RedisWatch.Watch claim = this.redis.start();
		long start = System.nanoTime();
		try (QueueUnderTest.Consumer consumer = consumers.apply((payload, storedDue) -> delivered.incrementAndGet())) {
			awaitCount(delivered::get, CLAIMED, Duration.ofMinutes(10));
			figures.claimRate = CLAIMED / Workloads.seconds(start);
			figures.operations.add(claim.stop("claim", CLAIMED));
		}
	}

	/** Messages due over the day that starts in an hour, evenly spread: the dashboard's day has them all. */
	private static List<Message> spreadOverADay(int size) {
		long first = (System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1)) * 1000;
		long step = Workloads.DAY_MILLIS * 1000 / size;
		List<Message> messages = new ArrayList<>(size);
		for (int i = 0; i < size; i++) {
			messages.add(Message.dueAtMicros(Workloads.id("w-", i), first + step * i));
		}
		return messages;
	}

	private static Samples.Summary latency(int samples, Sample sample) {
		Samples latencies = new Samples();
		for (int i = 0; i < samples; i++) {
			long begin = System.nanoTime();
			sample.run(i);
			latencies.add((System.nanoTime() - begin) / 1000);
		}
		return latencies.summary();
	}

	/** Samples an O(n) operation: at most {@code samples}, and none after a minute. */
	private static Samples.Summary bounded(int samples, Sample sample) {
		Samples latencies = new Samples();
		long budget = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		for (int i = 0; i < samples && System.nanoTime() < budget; i++) {
			long begin = System.nanoTime();
			sample.run(i);
			latencies.add((System.nanoTime() - begin) / 1000);
		}
		return latencies.summary();
	}

	private static void awaitCount(LongSupplier count, long expected, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (count.getAsLong() < expected) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Only " + count.getAsLong() + " of " + expected + " delivered within "
						+ timeout);
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
		}
	}

	private static void check(boolean condition, String message) {
		if (!condition) {
			throw new IllegalStateException(message);
		}
	}

	private static void log(String system, int size, String line) {
		Benchmarks.log(String.format(Locale.ROOT, "%s at %,d waiting: %s", system, size, line));
	}

	@FunctionalInterface
	private interface Sample {

		void run(int i);

	}

	/** One system's figures at one size (latencies in µs; absent where the system lacks the operation). */
	static final class Figures {

		final List<Operation> operations = new ArrayList<>();

		double fillRate;

		double replaySeconds = Double.NaN;

		double purgeSeconds = Double.NaN;

		double resumeRate;

		Samples.Summary schedule;

		Samples.Summary cancel;

		Samples.Summary lookup;

		Samples.Summary firstPage;

		Samples.Summary timelineDay;

		Samples.Summary timelineWeek;

		Samples.Summary stats;

		/** The dashboard's requests over HTTP, by name (ours only). */
		Map<String, Samples.Summary> dashboard = Map.of();

		double claimRate = Double.NaN;

		long deepPage = -1;

		int backlog;

		int size;

		int deepPageNumber;

		public List<Operation> getOperations() {
			return this.operations;
		}

		public double getFillRate() {
			return this.fillRate;
		}

		public double getResumeRate() {
			return this.resumeRate;
		}

		public double getClaimRate() {
			return this.claimRate;
		}

		public Map<String, Samples.Summary> getDashboard() {
			return this.dashboard;
		}

		/** A system not run: every figure absent. */
		static Figures absent(int size) {
			Figures figures = new Figures();
			figures.size = size;
			figures.fillRate = Double.NaN;
			figures.resumeRate = Double.NaN;
			for (String name : List.of("fill", "purge", "resume", "claim")) {
				figures.operations.add(new Operation(name, Double.NaN, Double.NaN, -1, "", 0, 0, 0, 0));
			}
			return figures;
		}

		Operation operation(String name) {
			return this.operations.stream().filter((o) -> o.name().equals(name)).findFirst().orElse(null);
		}

		/** Adds the rows of a size, ours beside Redisson's. */
		void rows(String section, Figures theirs, Report report) {
			Operation fill = operation("fill");
			Operation theirFill = theirs.operation("fill");
			report.row(section, "Redis memory per waiting message", "B", Better.LOWER, fill.bytesPerMessage(),
					theirFill.bytesPerMessage(), "used_memory after storing them, less before, per message");
			report.row(section, "store them: Redis CPU per message", "µs", Better.LOWER,
					fill.redisCpuMicrosPerMessage(), theirFill.redisCpuMicrosPerMessage(),
					"ours scheduleAll of 1,000 (script calls of " + RedisMessageStore.SCHEDULE_CHUNK_SIZE
							+ "); Redisson offerAsync, 512 in flight");
			report.row(section, "store them: rate", "msgs/s", Better.HIGHER, this.fillRate, theirs.fillRate, null);
			longest(report, section, "store them", fill, this.size, theirFill, theirs.size);
			report.row(section, "schedule one, p50 / p99", "µs", Better.LOWER, p50(this.schedule),
					p50(theirs.schedule), "p99: " + p99(this.schedule) + " / " + p99(theirs.schedule));
			report.row(section, "cancel one, p50", "µs", Better.LOWER, p50(this.cancel), p50(theirs.cancel),
					"Redisson's remove scans its list (a few samples, none above 1 M); p99 ours " + p99(this.cancel));
			report.row(section, "look up one by id, p50", "µs", Better.LOWER, p50(this.lookup), p50(theirs.lookup),
					"Redisson: contains (a scan); p99 ours " + p99(this.lookup));
			report.row(section, "list the first page of 100, p50", "µs", Better.LOWER, p50(this.firstPage), null,
					"Redisson has no listing by due time");
			report.row(section, "list page " + String.format(Locale.ROOT, "%,d", this.deepPageNumber)
					+ " of 100 (by cursor)", "µs", Better.LOWER, (double) this.deepPage, null,
					"the page's own call, after paging there");
			longest(report, section, "paging to page " + this.deepPageNumber, operation("paging"), this.deepPageNumber,
					null, 0);
			report.row(section, "dashboard timeline, a day by hours (countDue), p50", "µs", Better.LOWER,
					p50(this.timelineDay), null, "24 exact counts; p99 " + p99(this.timelineDay));
			report.row(section, "dashboard timeline, a week by 6 hours (countDue), p50", "µs", Better.LOWER,
					p50(this.timelineWeek), null, "28 exact counts; p99 " + p99(this.timelineWeek));
			report.row(section, "per-state counts (stats: the dashboard's sample, the actuator), p50", "µs",
					Better.LOWER, p50(this.stats), null, "p99 " + p99(this.stats));
			this.dashboard.forEach((name, latency) -> report.row(section, "dashboard over HTTP: " + name + ", p50", "µs",
					Better.LOWER, p50(latency), null, "the whole request (an application of the starter, Spring MVC "
							+ "and the dashboard); p99 " + p99(latency)));
			Operation claim = operation("claim");
			Operation theirClaim = theirs.operation("claim");
			report.row(section, "claim " + String.format(Locale.ROOT, "%,d", CLAIMED)
					+ " due among the waiting: Redis CPU per delivered message", "µs", Better.LOWER,
					claim.redisCpuMicrosPerMessage(), theirClaim.redisCpuMicrosPerMessage(),
					"one consumer, 8 handlers; the claims' cost with the topic at this size");
			report.row(section, "claim " + String.format(Locale.ROOT, "%,d", CLAIMED)
					+ " due among the waiting: drain rate", "msgs/s", Better.HIGHER, this.claimRate, theirs.claimRate,
					null);
			longest(report, section, "claims among the waiting", claim, CLAIMED, theirClaim, CLAIMED);
			report.row(section, "replay every dead letter", "s", Better.LOWER, this.replaySeconds, null,
					"up to 1 M dead letters, into a paused topic; RDelayedQueue has no dead letters");
			longest(report, section, "replay", operation("replay"), this.backlog, null, 0);
			report.row(section, "purge every dead letter (Redisson: clear() of every waiting message)", "s",
					Better.LOWER, this.purgeSeconds, theirs.purgeSeconds, null);
			longest(report, section, "purge (Redisson: clear)", operation("purge"), this.backlog, theirs.operation("purge"),
					theirs.size);
			report.row(section, "resume a paused topic with up to 1 M due at once: drain rate", "msgs/s",
					Better.HIGHER, this.resumeRate, theirs.resumeRate,
					"one consumer, 8 handlers; Redisson: " + String.format(Locale.ROOT, "%,d", theirs.backlog)
							+ " offers due at the same time");
			Operation resume = operation("resume");
			Operation theirResume = theirs.operation("resume");
			report.row(section, "resume: Redis CPU per delivered message (claim cost)", "µs", Better.LOWER,
					resume.redisCpuMicrosPerMessage(), theirResume.redisCpuMicrosPerMessage(), null);
			longest(report, section, "resume", resume, this.backlog, theirResume, theirs.backlog);
		}

		private static void longest(Report report, String section, String what, Operation ours, long ourMessages,
				Operation theirs, long theirMessages) {
			// Redisson's figures are absent where it failed (the report's notes say how)
			Operation other = (theirs != null && theirs.longestMicros() >= 0) ? theirs : null;
			report.row(section, what + ": Redis's longest command", "ms", Better.LOWER, ours.longestMicros() / 1000.0,
					(other != null) ? other.longestMicros() / 1000.0 : null, describe("ours", ours)
							+ ((other != null) ? "; " + describe("Redisson", other) : ""));
			report.row(section, what + ": Redis CPU per script call, mean", "ms", Better.LOWER,
					cpuPerCommand(ours, ourMessages), (other != null) ? cpuPerCommand(other, theirMessages) : null,
					"what a call holds Redis for without the machine's other load: Redis's CPU over the script calls "
							+ "run (other commands not counted)");
		}

		private static String describe(String system, Operation operation) {
			return String.format(Locale.ROOT, "%s %s; p99 of %,d commands %.2f ms, %,d over 1 ms", system,
					operation.longestCommand(), operation.commands(), operation.p99Micros() / 1000.0,
					operation.overOneMillisecond());
		}

		/** Redis CPU per script call during the operation, in ms. */
		private static Double cpuPerCommand(Operation operation, long messages) {
			return (operation == null || operation.commandsRun() == 0) ? null
					: operation.redisCpuMicrosPerMessage() * messages / operation.commandsRun() / 1000.0;
		}

		private static Double p50(Samples.Summary summary) {
			return (summary == null || summary.count() == 0) ? null : (double) summary.p50();
		}

		private static String p99(Samples.Summary summary) {
			return (summary == null || summary.count() == 0) ? "n/a" : Long.toString(summary.p99());
		}

	}

}
