package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link HandlerLoop}, what each handler thread of a listener runs, wired as a {@link ListenerConsumer} wires it (real
 * partitions, ready queue, handler threads, message runner and crash isolation) against a real Redis. The wake-up timer
 * is not started: a partition claims when it starts and when it is asked, never on a wake or a poll, so a claim seen
 * here was asked for.
 */
class HandlerLoopTests {

	private static final String TOPIC = "loop";

	private static final Duration WAIT = Duration.ofSeconds(10);

	private static final Duration VISIBILITY = Duration.ofSeconds(30);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final LettuceConnectionFactory factory = this.fixture.connectionFactory();

	private final RedisMessageStore store = this.fixture.store(this.factory);

	private final WakeUpTimer wakeUps = new WakeUpTimer(this.factory, Duration.ofMillis(5), Duration.ofMinutes(1));

	private final ExecutorService io = Executors.newCachedThreadPool();

	private final ScheduledExecutorService maintenance = Executors.newSingleThreadScheduledExecutor();

	/** The handler threads' executor; every thread it made. */
	private final List<Thread> handlerThreads = new CopyOnWriteArrayList<>();

	private final ExecutorService handlerExecutor = Executors.newCachedThreadPool((task) -> {
		Thread thread = new Thread(task, "handler-" + this.handlerThreads.size());
		thread.setDaemon(true);
		this.handlerThreads.add(thread);
		return thread;
	});

	/** Lets handlers that wait for it end. */
	private final Map<String, CountDownLatch> mayEnd = new ConcurrentHashMap<>();

	/** Message ids, in the order their handlers started. */
	private final List<String> started = new CopyOnWriteArrayList<>();

	private final List<Partition> partitions = new ArrayList<>();

	private final CrashIsolation isolation = new CrashIsolation();

	private ListenerContext context;

	private HandlerLoop loop;

	private HandlerThreads threads;

	@AfterEach
	void tearDown() {
		this.mayEnd.values().forEach(CountDownLatch::countDown);
		if (this.loop != null) {
			this.loop.stop();
			this.threads.close();
			this.partitions.forEach(Partition::stopClaiming);
			this.loop.handBack(this.context.ready().close());
			this.partitions.forEach((partition) -> partition.handBackRunning("test over"));
		}
		this.handlerExecutor.shutdownNow();
		this.io.shutdownNow();
		this.maintenance.shutdownNow();
		this.fixture.close();
	}

	@Test
	void aBatchedMessageLeasedAheadOfItsDueTimeStartsNoEarlierThanItsDueTimeOnTheRedisClock() {
		List<Instant> redisTimeAtStart = new CopyOnWriteArrayList<>();
		build(1, 1, (payload, message) -> redisTimeAtStart.add(this.fixture.redisTime()));
		schedule(TOPIC, "ahead", Duration.ofMillis(300));
		long sent = System.nanoTime();
		Claim claim = this.store.leases().claim(TOPIC, List.of(), 1, VISIBILITY.toMillis(), 10, false, 1_000_000);
		ClaimedMessage message = claim.messages().get(0);
		assertThat(message.dueAt()).as("leased well ahead of its due time")
			.isAfter(claim.serverTime().plusMillis(200));
		this.partitions.get(0).leases().hold(message.lease(), sent, false);

		this.context.ready().offer(List.of(new Delivery(message, 0, claim.serverTime(), System.nanoTime())));

		await().atMost(WAIT).until(() -> redisTimeAtStart.size() == 1);
		assertThat(redisTimeAtStart.get(0)).isAfterOrEqualTo(message.dueAt());
	}

	@Test
	void whileASuspectIsHeldBatchedMessagesDoNotStartAndAreHandedBackUncharged() {
		build(1, 2, blockingOn("suspect"));
		schedule(TOPIC, "suspect", Duration.ZERO);
		// its first lease runs out without an outcome: it is a suspect from then on
		assertThat(this.store.leases().claim(TOPIC, 1, 50, 10).messages()).hasSize(1);
		schedule(TOPIC, "batched-1", Duration.ZERO);
		schedule(TOPIC, "batched-2", Duration.ZERO);
		long sent = System.nanoTime();
		Claim batch = this.store.leases().claim(TOPIC, List.of(), 2, VISIBILITY.toMillis(), 10, false);
		assertThat(batch.messages()).extracting(ClaimedMessage::id).containsExactly("batched-1", "batched-2");
		Claim[] suspect = new Claim[1];
		long[] suspectSent = new long[1];
		await().atMost(WAIT).until(() -> {
			suspectSent[0] = System.nanoTime();
			suspect[0] = this.isolation.claim((mayLeaseSuspect) -> this.store.leases()
				.claim(TOPIC, List.of(), 1, VISIBILITY.toMillis(), 10, mayLeaseSuspect));
			return !suspect[0].messages().isEmpty();
		});
		assertThat(this.isolation.isSuspectHeld()).isTrue();
		ClaimedMessage suspectMessage = suspect[0].messages().get(0);
		batch.messages().forEach((message) -> this.partitions.get(0).leases().hold(message.lease(), sent, false));
		this.partitions.get(0).leases().hold(suspectMessage.lease(), suspectSent[0], true);

		// the batch first: a free thread does not start it while the suspect is held
		this.context.ready().offer(deliveries(batch));
		this.context.ready().offer(deliveries(suspect[0]));

		await().atMost(WAIT).until(() -> this.started.contains("suspect"));
		assertThat(this.started).as("only the suspect started").containsExactly("suspect");
		for (String id : List.of("batched-1", "batched-2")) {
			assertThat(call("ZSCORE", key(TOPIC, "leased"), id)).as(id + " handed back").isNull();
			assertThat(call("ZSCORE", key(TOPIC, "pending"), id)).isNotNull();
			assertThat(call("HGET", key(TOPIC, "tries"), id)).as(id + " uncharged").isNull();
		}
		this.mayEnd.get("suspect").countDown();
		await().atMost(WAIT).until(() -> !this.isolation.isSuspectHeld());
		assertThat(this.started).containsExactly("suspect");
	}

	@Test
	void aSuspectStartsOnlyWhenNoBatchedHandlerRunsAndItsEndAsksEveryPartitionToClaim() {
		this.store.partitions().check(TOPIC, 2);
		String partition0 = TopicKeys.partitionName(TOPIC, 0);
		String partition1 = TopicKeys.partitionName(TOPIC, 1);
		List<String> batchedLeasedWhenSuspectStarted = new CopyOnWriteArrayList<>();
		build(2, 2, (payload, message) -> {
			if (message.id().equals("suspect")) {
				batchedLeasedWhenSuspectStarted.add(String.valueOf(call("ZSCORE", key(partition0, "leased"), "batched")));
				return;
			}
			blockingOn("batched").handle(payload, message);
		});
		schedule(partition0, "batched", Duration.ZERO);
		start();
		await().atMost(WAIT).until(() -> this.started.contains("batched"));
		Thread batchedThread = blockedThread();
		// a message whose lease (another consumer's) ran out without an outcome: partition 0 leases it as a suspect
		schedule(partition0, "suspect", Duration.ZERO);
		assertThat(this.store.leases().claim(partition0, 1, 50, 10).messages()).hasSize(1);
		await().atMost(WAIT).until(() -> {
			this.partitions.get(0).requestClaim();
			return this.isolation.isSuspectHeld();
		});

		await().atMost(WAIT).until(() -> this.started.contains("suspect") || this.handlerThreads.stream()
			.anyMatch((thread) -> thread != batchedThread && isIn(thread, "awaitAlone")));
		assertThat(this.started).as("the suspect waits while a batched handler runs").containsExactly("batched");
		// a message falls due in partition 1: nothing claims it until asked
		schedule(partition1, "after-suspect", Duration.ZERO);

		this.mayEnd.get("batched").countDown();

		await().atMost(WAIT).until(() -> this.started.contains("suspect"));
		assertThat(batchedLeasedWhenSuspectStarted).as("the batched acknowledgement was in Redis before it started")
			.containsExactly("null");
		await().atMost(WAIT).until(() -> this.started.contains("after-suspect"));
		assertThat(this.started).containsExactly("batched", "suspect", "after-suspect");
	}

	private DelayedMessageHandler<String> blockingOn(String id) {
		CountDownLatch latch = this.mayEnd.computeIfAbsent(id, (key) -> new CountDownLatch(1));
		return (payload, message) -> {
			if (message.id().equals(id)) {
				latch.await();
			}
		};
	}

	/** Wires a listener's run as {@link ListenerConsumer} does, its partitions not started. */
	private void build(int partitionCount, int concurrency, DelayedMessageHandler<String> handler) {
		ListenerOptions options = ListenerOptions.builder().concurrency(concurrency).visibilityTimeout(VISIBILITY)
			.build();
		ContainerProperties properties = new ContainerProperties();
		this.threads = new HandlerThreads(TOPIC, concurrency, this.handlerExecutor, null);
		this.context = new ListenerContext(TOPIC, partitionCount, options, this.store, properties,
				new Prefetch(options), this.isolation, new ReadyQueue(this.threads, this.isolation));
		for (int index = 0; index < partitionCount; index++) {
			this.partitions.add(new Partition(this.context, index));
		}
		@SuppressWarnings("unchecked")
		ListenerRegistration<Object> registration = (ListenerRegistration<Object>) (ListenerRegistration<?>) ListenerRegistration
			.of(TOPIC, String.class, (payload, message) -> {
				this.started.add(message.id());
				handler.handle(payload, message);
			}, options);
		MessageRunner runner = new MessageRunner(this.context,
				new ListenerInvoker(registration, this.fixture.converter(), properties.getMonitor(),
						ObservationRegistry.NOOP, null));
		runner.start(this.io, this.maintenance);
		this.loop = new HandlerLoop(this.context, this.partitions, this.threads, runner);
		this.loop.start();
		this.threads.open(this.loop::work);
	}

	/** Starts the partitions: each claims at once. */
	private void start() {
		for (Partition partition : this.partitions) {
			partition.start(this.wakeUps, this.store.keys().wakeChannel(partition.name()), this.io, this.maintenance);
		}
	}

	private void schedule(String partition, String id, Duration delay) {
		this.store.messages().schedule(partition, List.of(new NewMessage(id, DueTime.in(delay.toNanos() / 1000),
				Instant.now(), Map.of(), this.fixture.converter().write(id))));
	}

	private static List<Delivery> deliveries(Claim claim) {
		long claimedNanos = System.nanoTime();
		return claim.messages().stream()
			.map((message) -> new Delivery(message, 0, claim.serverTime(), claimedNanos))
			.toList();
	}

	/** The handler thread blocked in {@link #blockingOn}. */
	private Thread blockedThread() {
		await().atMost(WAIT)
			.until(() -> this.handlerThreads.stream().anyMatch((thread) -> isIn(thread, "lambda$blockingOn")));
		return this.handlerThreads.stream().filter((thread) -> isIn(thread, "lambda$blockingOn")).findFirst().get();
	}

	/** Whether a thread is in a method of that name now. */
	private static boolean isIn(Thread thread, String method) {
		return Arrays.stream(thread.getStackTrace()).anyMatch((frame) -> frame.getMethodName().startsWith(method));
	}

	private static String call(String... args) {
		return redis.get().call(args);
	}

	private static String key(String partition, String name) {
		return RedisFixture.PREFIX + ":{" + partition + "}:" + name;
	}

}
