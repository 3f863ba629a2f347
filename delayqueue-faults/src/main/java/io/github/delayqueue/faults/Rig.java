package io.github.delayqueue.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;

import io.github.delayqueue.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.jspecify.annotations.Nullable;

/**
 * One run's set-up: a Redis server with an append-only file, the queue's producer under a steady load, and the
 * worker JVMs, each in a slot; a supervisor starts a fresh worker in a slot whose worker died on its own (a poison
 * halted it). Faults act on it; {@link #finish()} waits until the queue has drained and counts.
 */
final class Rig implements AutoCloseable {

	private final Path directory;

	private final Sizes sizes;

	private final Setup setup;

	private final RedisServerProcess redis;

	private final QueueClient client;

	private final List<WorkerProcess> slots = new ArrayList<>();

	private final List<WorkerProcess> everyWorker = new CopyOnWriteArrayList<>();

	private final List<Tally.Event> events = new CopyOnWriteArrayList<>();

	private final List<String> notes = new CopyOnWriteArrayList<>();

	private final Thread supervisor;

	private final Producer producer;

	private volatile boolean supervising = true;

	/** When the fault started, if its timeline is traced; else 0. */
	private volatile long faultStartedAt;

	private final List<Timeline.Sample> samples = new CopyOnWriteArrayList<>();

	private @Nullable Thread sampler;

	private int incarnations;

	private int crashes;

	private RedisClient adminClient;

	private StatefulRedisConnection<String, String> admin;

	Rig(Path directory, Sizes sizes, Setup setup) {
		this.directory = directory;
		this.sizes = sizes;
		this.setup = setup;
		this.redis = RedisServerProcess.onFreePort()
			.arguments("--appendonly", "yes", "--appendfsync", setup.fsync(), "--enable-debug-command", "yes")
			.start();
		this.client = setup.redisson() ? new RedissonQueueClient(this.redis.port(), Sizes.COMMAND_TIMEOUT.toMillis())
				: new DelayQueueClient(this.redis.port(), Sizes.COMMAND_TIMEOUT);
		try {
			WorkerProcess.prepareArchive(this.directory, Map.of(), workerArguments(0));
			// started together, then awaited: JVMs start faster side by side
			for (int slot = 0; slot < setup.environments().size(); slot++) {
				this.slots.add(launchWorker(slot));
			}
			this.slots.forEach(WorkerProcess::awaitReady);
		}
		catch (RuntimeException ex) {
			this.slots.forEach(WorkerProcess::kill);
			this.client.close();
			this.redis.close();
			throw ex;
		}
		this.supervisor = new Thread(this::supervise, "supervisor");
		this.supervisor.start();
		this.producer = new Producer(this.client, sizes);
	}

	private WorkerProcess startWorker(int slot) {
		return launchWorker(slot).awaitReady();
	}

	private WorkerProcess launchWorker(int slot) {
		String incarnation = "w" + slot + "-" + (this.incarnations++);
		WorkerProcess worker = WorkerProcess.start(this.directory, incarnation, this.setup.environments().get(slot),
				workerArguments(slot));
		this.everyWorker.add(worker);
		return worker;
	}

	private List<String> workerArguments(int slot) {
		return List.of("--system=" + (this.setup.redisson() ? "redisson" : "delayqueue"),
						"--port=" + this.redis.port(), "--concurrency=" + Sizes.CONCURRENCY,
						"--lease-ms=" + this.sizes.leaseMillis(), "--max-attempts=" + Sizes.MAX_ATTEMPTS,
						"--handler-ms=" + Sizes.HANDLER_MILLIS, "--timeout-ms=" + Sizes.COMMAND_TIMEOUT.toMillis(),
						"--calibrate=" + !this.setup.environments().get(slot).isEmpty());
	}

	/**
	 * Starts a fresh worker in each slot whose worker died on its own, at once and side by side, as an orchestrator
	 * restarts each instance of an application on its own: a slot does not wait for another's JVM to come up (one at
	 * a time, a run of JVM-killing messages took the workers down faster than they came back, which is the rig's
	 * doing, not the queue's). The fault is over for a slot when its fresh worker consumes.
	 */
	private void supervise() {
		Map<Integer, Long> downSince = new HashMap<>();
		while (this.supervising) {
			synchronized (this) {
				for (int slot = 0; slot < this.slots.size() && this.supervising; slot++) {
					WorkerProcess worker = this.slots.get(slot);
					if (!worker.isAlive()) {
						worker.markCrashed();
						this.crashes++;
						downSince.putIfAbsent(slot, System.currentTimeMillis());
						this.slots.set(slot, launchWorker(slot));
					}
					else if (downSince.containsKey(slot) && worker.ready()) {
						event(downSince.remove(slot), worker.readyAt(), false);
					}
				}
			}
			sleep(Duration.ofMillis(100));
		}
	}

	Sizes sizes() {
		return this.sizes;
	}

	RedisServerProcess redis() {
		return this.redis;
	}

	Producer producer() {
		return this.producer;
	}

	int workers() {
		return this.slots.size();
	}

	synchronized WorkerProcess worker(int slot) {
		return this.slots.get(slot);
	}

	/**
	 * {@code kill -9} the worker in a slot and start a fresh one; records the fault.
	 * @param slot the slot
	 */
	synchronized void kill(int slot) {
		long start = System.currentTimeMillis();
		this.slots.get(slot).kill();
		this.crashes++;
		this.slots.set(slot, startWorker(slot));
		event(start, System.currentTimeMillis(), false);
	}

	/**
	 * Shuts the worker in a slot down gracefully and starts a fresh one; records the restart.
	 * @param slot the slot
	 */
	synchronized void restart(int slot) {
		long start = System.currentTimeMillis();
		this.slots.get(slot).terminate();
		this.slots.set(slot, startWorker(slot));
		event(start, System.currentTimeMillis(), false);
	}

	/**
	 * Records an injected fault.
	 * @param start when it began
	 * @param end when it was over
	 * @param redisSide whether Redis or its connections were hit
	 */
	void event(long start, long end, boolean redisSide) {
		this.events.add(new Tally.Event(start, end, redisSide));
	}

	/**
	 * Adds a note to the run's row.
	 * @param note what the reader should know
	 */
	void note(String note) {
		FaultSuite.log(note);
		this.notes.add(note);
	}

	/**
	 * A connection for fault commands ({@code CLIENT KILL}, {@code CLIENT PAUSE}, {@code DEBUG SLEEP}); it waits
	 * out a stall, and reconnects after a Redis restart.
	 * @return its commands
	 */
	synchronized RedisCommands<String, String> admin() {
		if (this.admin == null) {
			this.adminClient = RedisClient.create(RedisURI.builder()
				.withHost("127.0.0.1")
				.withPort(this.redis.port())
				.withTimeout(Duration.ofSeconds(30))
				.build());
			this.admin = this.adminClient.connect();
		}
		return this.admin.sync();
	}

	/**
	 * Traces the run's {@link Timeline} from now on, the fault's start: the outcome will carry it. For delayqueue, a
	 * thread of its own samples what Redis holds (suspects, leases) every 100 ms, on a connection of its own.
	 */
	void traceTimeline() {
		this.faultStartedAt = System.currentTimeMillis();
		if (!this.setup.redisson()) {
			this.sampler = new Thread(this::sample, "sampler");
			this.sampler.setDaemon(true);
			this.sampler.start();
		}
	}

	private void sample() {
		String base = DelayQueueConsumer.PREFIX + ":{" + DelayQueueConsumer.TOPIC + "}:";
		RedisClient sampling = RedisClient.create(RedisURI.builder()
			.withHost("127.0.0.1")
			.withPort(this.redis.port())
			.withTimeout(Duration.ofSeconds(1))
			.build());
		try (StatefulRedisConnection<String, String> connection = sampling.connect()) {
			RedisCommands<String, String> redis = connection.sync();
			while (this.supervising) {
				try {
					long at = System.currentTimeMillis();
					long suspects = redis.scard(base + "suspect");
					long leased = redis.zcard(base + "leased");
					String running = redis.hget(base + "meta", "srun");
					boolean chargedLeased = running != null && redis.zscore(base + "leased", running) != null;
					this.samples.add(new Timeline.Sample(at, (int) suspects, (int) leased, chargedLeased));
				}
				catch (RuntimeException ex) {
					// Redis unreachable for a moment: no sample
				}
				sleep(Duration.ofMillis(100));
			}
		}
		catch (RuntimeException ex) {
			FaultSuite.log("sampling Redis ended: " + ex);
		}
		finally {
			sampling.shutdown();
		}
	}

	/**
	 * Stops the load, waits until every acknowledged message was handled or the queue holds nothing more (up to the
	 * last due time plus every attempt's lease and 30 s), and counts.
	 * @return the run's figures
	 */
	Outcome finish() {
		this.producer.close();
		long deadline = Math.max(System.currentTimeMillis(), this.producer.lastDue())
				+ this.sizes.leaseMillis() * (Sizes.MAX_ATTEMPTS + 1) + 30_000;
		int lastSeen = -1;
		long quietSince = System.currentTimeMillis();
		while (System.currentTimeMillis() < deadline) {
			List<Ledger.Delivery> deliveries = Ledger.read(this.directory);
			Set<String> handled = new HashSet<>();
			deliveries.forEach((delivery) -> handled.add(delivery.key()));
			if (handled.containsAll(this.producer.sent().keySet()) && remaining() == 0) {
				break;
			}
			if (deliveries.size() != lastSeen) {
				lastSeen = deliveries.size();
				quietSince = System.currentTimeMillis();
			}
			else if (System.currentTimeMillis() - quietSince > 3_000 && remaining() == 0) {
				break;
			}
			sleep(Duration.ofMillis(500));
		}
		this.supervising = false;
		joinSupervisor();
		joinSampler();
		Set<String> crashed = new HashSet<>();
		this.everyWorker.stream().filter(WorkerProcess::crashed).forEach((w) -> crashed.add(w.incarnation()));
		// what is not handled yet is looked up first, the ledger read after: a message handled in between is in the
		// ledger (a handler writes its line before its acknowledgement can delete the message), so none counts as
		// gone that was only on its way
		@Nullable Map<String, QueueClient.Held> held = this.client
			.held(Tally.unhandled(this.producer.sent(), Ledger.read(this.directory)));
		List<Ledger.Delivery> deliveries = Ledger.read(this.directory);
		Tally.Figures figures = Tally.count(this.producer.sent(), deliveries, crashed, this.events,
				this.sizes.leaseMillis(), held);
		Set<String> deadLetters = this.client.deadLetterIds();
		int normalDead = 0;
		for (String key : this.producer.sent().keySet()) {
			if (deadLetters.contains(Work.idOf(key))) {
				normalDead++;
			}
		}
		int poisonDead = (int) this.producer.poisons().keySet().stream().filter(deadLetters::contains).count();
		Timeline timeline = (this.faultStartedAt == 0) ? null
				: Timeline.of(this.faultStartedAt, this.producer.sent(), deliveries,
						this.everyWorker.stream().map(WorkerProcess::lifetime).toList(), List.copyOf(this.samples));
		return new Outcome(figures, this.events.size(), this.crashes, this.producer.failedCalls(), normalDead,
				this.producer.poisons().size(), poisonDead, List.copyOf(this.notes), timeline);
	}

	private void joinSampler() {
		Thread thread = this.sampler;
		if (thread != null) {
			try {
				thread.join(5_000);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private long remaining() {
		try {
			return this.client.remaining();
		}
		catch (RuntimeException ex) {
			return -1;
		}
	}

	private void joinSupervisor() {
		try {
			this.supervisor.join(120_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Override
	public void close() {
		this.supervising = false;
		this.producer.close();
		joinSupervisor();
		joinSampler();
		synchronized (this) {
			for (WorkerProcess worker : this.slots) {
				if (worker.isAlive()) {
					worker.kill();
				}
			}
		}
		if (this.admin != null) {
			this.admin.close();
			this.adminClient.shutdown();
		}
		this.client.close();
		this.redis.close();
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * What a run is set up with.
	 *
	 * @param redisson {@code true} to run Redisson's {@code RDelayedQueue}, {@code false} for delayqueue
	 * @param fsync Redis's {@code appendfsync} policy
	 * @param environments per worker slot, variables added to its JVM's environment (a worker with any has its
	 * clock skewed: its ledger times are corrected to the Redis server's clock)
	 */
	record Setup(boolean redisson, String fsync, List<Map<String, String>> environments) {

		static Setup of(boolean redisson, String fsync, int workers) {
			List<Map<String, String>> environments = new ArrayList<>();
			for (int i = 0; i < workers; i++) {
				environments.add(Map.of());
			}
			return new Setup(redisson, fsync, environments);
		}

	}

	/**
	 * A run's figures and what the rig saw.
	 *
	 * @param figures the counted figures
	 * @param faults faults injected (including crashes by poison)
	 * @param crashes worker JVMs that died (killed or halted)
	 * @param failedCalls schedule calls that failed (not acknowledged; not counted as sent)
	 * @param normalDeadLettered ordinary messages found among the dead letters
	 * @param poisonSent poison messages sent
	 * @param poisonDeadLettered of them, those found among the dead letters
	 * @param notes what the faults noted
	 * @param timeline where the lateness came from, for faults that trace it ({@link Fault#timeline()}); else
	 * {@code null}
	 */
	record Outcome(Tally.Figures figures, int faults, int crashes, int failedCalls, int normalDeadLettered,
			int poisonSent, int poisonDeadLettered, List<String> notes, @Nullable Timeline timeline) {
	}

}
