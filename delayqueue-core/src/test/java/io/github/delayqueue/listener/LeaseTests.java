package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.StoredEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LeaseTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final CountDownLatch release = new CountDownLatch(1);

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.admin = this.fixture.admin(this.store);
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.fixture.close();
	}

	@Test
	void aConsumerThatDiesLosesItsMessageToAnotherAfterTheLease() {
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).build();
		LettuceConnectionFactory doomedConnection = this.fixture.connectionFactory();
		RedisFixture.Consumer doomed = this.fixture.consumer(doomedConnection);
		AtomicInteger started = new AtomicInteger();
		doomed.listeners().register(ListenerRegistration.of("crash", String.class, (payload, message) -> {
			started.incrementAndGet();
			this.release.await();
		}, options));
		this.queue.schedule("crash", "c-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> started.get() == 1);

		// the consumer is cut off from Redis, as a crashed process would be: no ack, no lease extension
		doomedConnection.destroy();
		Recorder<String> survivor = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("crash", String.class, survivor, options));

		await().atMost(WAIT).until(() -> survivor.count("c-1") == 1);
		assertThat(survivor.received.get(0).message().attempt())
			.as("nobody knows whether it caused the crash: its run alone is its first counted attempt")
			.isEqualTo(1);
		assertThat(survivor.received.get(0).message().redelivered()).isTrue();
		assertThat(survivor.received.get(0).message().isRedelivery()).isTrue();
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "crash").isEmpty());
	}

	@Test
	void aConsumerThatStoodStillPastTheLeaseStartsNothingFromItsBatchWhenItWakes() {
		ListenerOptions options = ListenerOptions.builder()
			.visibilityTimeout(Duration.ofSeconds(1))
			.concurrency(1)
			.batchSize(3)
			.build();
		LettuceConnectionFactory stalledConnection = this.fixture.connectionFactory();
		Recorder<String> survivor = new Recorder<>();
		CountDownLatch standingStill = new CountDownLatch(1);
		AtomicInteger wokeUp = new AtomicInteger();
		// the JVM stands still (a long GC pause, SIGSTOP) between the claim of a batch and its first handler's start,
		// until another consumer has had every message of the batch
		RedisFixture.Consumer stalled = this.fixture.consumer(stalledConnection,
				(factory) -> factory.getContainerProperties().setTaskDecorator((handling) -> () -> {
					if (standingStill.getCount() == 1) {
						standingStill.countDown();
						await().atMost(WAIT).until(() -> survivor.received.size() == 3);
					}
					handling.run();
					wokeUp.incrementAndGet();
				}));
		AtomicInteger stalledHandled = new AtomicInteger();
		for (int i = 0; i < 3; i++) {
			this.queue.schedule("pause", "p-" + i, "x", Duration.ZERO);
		}
		stalled.listeners().register(ListenerRegistration.of("pause", String.class,
				(payload, message) -> stalledHandled.incrementAndGet(), options));
		await().atMost(WAIT).until(() -> standingStill.getCount() == 0);
		assertThat(this.admin.stats("pause").inflight()).as("the whole batch is leased").isEqualTo(3);
		// frozen: its leases are not extended either
		stalledConnection.destroy();

		this.fixture.consumer().listeners().register(ListenerRegistration.of("pause", String.class, survivor, options));
		await().atMost(WAIT).until(() -> survivor.received.size() == 3);

		// awake again, it goes through the messages it held: none may start
		await().atMost(WAIT).until(() -> wokeUp.get() == 3);
		assertThat(stalledHandled.get()).as("the stalled consumer's handlers must not start on leases that ran out")
			.isZero();
		assertThat(survivor.countsById).hasSize(3).allSatisfy((id, count) -> assertThat(count.get()).isEqualTo(1));
	}

	@Test
	void aMessageWhoseTaskDecoratorThrowsGoesBackAtOnceInsteadOfBeingHeldForEver() {
		AtomicInteger decorated = new AtomicInteger();
		Recorder<String> recorder = new Recorder<>();
		RedisFixture.Consumer consumer = this.fixture.consumer(this.fixture.connectionFactory(),
				(factory) -> factory.getContainerProperties().setTaskDecorator((handling) -> () -> {
					if (decorated.incrementAndGet() == 1) {
						throw new IllegalStateException("no security context today");
					}
					handling.run();
				}));
		this.queue.schedule("decorated", "d-1", "x", Duration.ZERO);
		// a visibility timeout far beyond the wait: only a hand-back can bring the message back in time
		consumer.listeners().register(ListenerRegistration.of("decorated", String.class, recorder,
				ListenerOptions.builder().visibilityTimeout(Duration.ofMinutes(10)).build()));
		await().atMost(WAIT).until(() -> recorder.count("d-1") == 1);
		assertThat(decorated.get()).isEqualTo(2);
	}

	@Test
	void aHandlerRunningLongerThanTheLeaseIsNotRedelivered() {
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).build();
		AtomicInteger deliveries = new AtomicInteger();
		DelayedMessageHandler<String> slow = (payload, message) -> {
			deliveries.incrementAndGet();
			this.release.await(30, TimeUnit.SECONDS);
		};
		this.fixture.consumer().listeners().register(ListenerRegistration.of("slow", String.class, slow, options));
		this.fixture.consumer().listeners().register(ListenerRegistration.of("slow", String.class, slow, options));
		this.queue.schedule("slow", "s-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> deliveries.get() == 1);

		// three leases long, the running handler keeps its lease and nobody else gets the message
		await().during(Duration.ofSeconds(3)).atMost(WAIT).until(() -> deliveries.get() == 1);
		assertThat(this.admin.stats("slow").inflight()).isEqualTo(1);

		this.release.countDown();
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "slow").isEmpty());
		assertThat(deliveries.get()).isEqualTo(1);
	}

	@Test
	void stopHandsARunningMessageBackAtOnceWithItsAttemptCounted() {
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofMinutes(5)).build();
		RedisFixture.Consumer stopping = this.fixture.consumer();
		stopping.listeners().setShutdownTimeout(Duration.ofMillis(200));
		AtomicInteger started = new AtomicInteger();
		AtomicInteger interrupted = new AtomicInteger();
		stopping.listeners().register(ListenerRegistration.of("handback", String.class, (payload, message) -> {
			started.incrementAndGet();
			try {
				this.release.await();
			}
			catch (InterruptedException ex) {
				interrupted.incrementAndGet();
				throw ex;
			}
		}, options));
		this.queue.schedule("handback", "h-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> started.get() == 1);

		Recorder<String> next = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("handback", String.class, next, options));
		stopping.listeners().stop();

		await().atMost(WAIT).until(() -> next.count("h-1") == 1);
		// interrupted after the shutdown timeout, its handler failed: that run counts
		assertThat(next.received.get(0).message().attempt()).as("the interrupted run is counted").isEqualTo(2);
		assertThat(next.received.get(0).message().isRedelivery()).isTrue();
		assertThat(interrupted.get()).isEqualTo(1);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "handback").isEmpty());
	}

	@Test
	void aHandlerThatIgnoresTheInterruptAtStopHasItsAttemptCountedAndItsMessageRunsAloneNext() {
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofMinutes(5)).build();
		RedisFixture.Consumer stopping = this.fixture.consumer();
		stopping.listeners().setShutdownTimeout(Duration.ofMillis(200));
		AtomicInteger started = new AtomicInteger();
		stopping.listeners().register(ListenerRegistration.of("stuck", String.class, (payload, message) -> {
			started.incrementAndGet();
			boolean released = false;
			while (!released) {
				try {
					released = this.release.await(10, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					// a handler that does not stop when interrupted
				}
			}
		}, options));
		this.queue.schedule("stuck", "s-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> started.get() == 1);

		stopping.listeners().stop();
		StoredEntry entry = this.store.messages().lookup("stuck", "s-1");
		assertThat(entry).isNotNull();
		assertThat(entry.state()).as("handed back as soon as the stop ends").isEqualTo(StoredEntry.State.WAITING);
		assertThat(entry.attempts()).as("a run that never returned counts").isEqualTo(1);
		assertThat(entry.error()).startsWith("Handler still running when its consumer stopped");
		assertThat(entry.suspect()).as("it runs alone from now on").isTrue();
		this.release.countDown();
	}

	@Test
	void aConsumerLeasesUpToItsBatchSizeAndAStopHandsTheWaitingOnesBackAtOnceUncharged() {
		ListenerOptions options = ListenerOptions.builder()
			.concurrency(1)
			.batchSize(3)
			.visibilityTimeout(Duration.ofMinutes(5))
			.build();
		RedisFixture.Consumer stopping = this.fixture.consumer();
		stopping.listeners().setShutdownTimeout(Duration.ofSeconds(30));
		AtomicInteger started = new AtomicInteger();
		stopping.listeners().register(ListenerRegistration.of("waiting", String.class, (payload, message) -> {
			started.incrementAndGet();
			this.release.await();
		}, options));
		for (int i = 0; i < 5; i++) {
			this.queue.schedule("waiting", "w-" + i, "x", Duration.ZERO);
		}
		// one handler runs its message, two more wait in the consumer (its batch of 3), two stay in Redis
		await().atMost(WAIT).until(() -> started.get() == 1 && this.admin.stats("waiting").ready() == 2
				&& this.admin.stats("waiting").inflight() == 3);
		CountDownLatch stopped = new CountDownLatch(1);
		stopping.listeners().stop(stopped::countDown);

		// the two waiting ones are handed back at once, while the running handler still has its shutdown timeout
		Recorder<String> next = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("waiting", String.class, next, options));
		await().atMost(WAIT).until(() -> next.received.size() == 4);
		assertThat(stopped.getCount()).as("the running handler is still running").isEqualTo(1);
		assertThat(started.get()).isEqualTo(1);
		this.release.countDown();
		await().atMost(WAIT).until(() -> stopped.getCount() == 0);
		assertThat(next.received).allSatisfy((received) -> assertThat(received.message().attempt())
			.as("neither a handed-back nor a never-leased message is charged").isEqualTo(1));
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "waiting").isEmpty());
	}

	@Test
	void stopLetsRunningHandlersFinishWithinTheTimeout() {
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().setShutdownTimeout(Duration.ofSeconds(10));
		AtomicInteger started = new AtomicInteger();
		AtomicInteger finished = new AtomicInteger();
		consumer.listeners().register(ListenerRegistration.of("drain", String.class, (payload, message) -> {
			started.incrementAndGet();
			this.release.await();
			finished.incrementAndGet();
		}));
		this.queue.schedule("drain", "d-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> started.get() == 1);
		Thread stopper = new Thread(consumer.listeners()::stop);
		stopper.start();
		await().atMost(WAIT).until(() -> stopper.getState() == Thread.State.WAITING
				|| stopper.getState() == Thread.State.TIMED_WAITING);
		this.release.countDown();
		await().atMost(WAIT).until(() -> !stopper.isAlive());
		assertThat(finished.get()).isEqualTo(1);
		assertThat(RedisFixture.keysOf(redis.get(), "drain")).as("acked before stop returned").isEmpty();
	}


	@Test
	void anAsynchronousStopReturnsAtOnceAndCallsBackOnceTheHandlersAreDone() throws Exception {
		RedisFixture.Consumer consumer = this.fixture.consumer();
		consumer.listeners().setShutdownTimeout(Duration.ofSeconds(10));
		AtomicInteger started = new AtomicInteger();
		consumer.listeners().register(ListenerRegistration.of("async-stop", String.class, (payload, message) -> {
			started.incrementAndGet();
			this.release.await();
		}));
		this.queue.schedule("async-stop", "a-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> started.get() == 1);

		CountDownLatch stopped = new CountDownLatch(1);
		consumer.listeners().stop(stopped::countDown);
		assertThat(stopped.getCount()).as("the handler still runs: not stopped yet").isEqualTo(1);
		this.release.countDown();
		assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(consumer.listeners().isRunning()).isFalse();
		assertThat(RedisFixture.keysOf(redis.get(), "async-stop")).as("acked before the callback").isEmpty();
	}


	@Test
	void aClaimInFlightWhenStopRunsHandsItsMessagesBackUnstarted() {
		RedisFixture.Consumer stopping = this.fixture.consumer();
		AtomicInteger handled = new AtomicInteger();
		this.queue.schedule("in-flight", "f-1", "x", Duration.ofMillis(500));
		stopping.listeners().register(ListenerRegistration.of("in-flight", String.class,
				(payload, message) -> handled.incrementAndGet()));
		// Redis holds every script until the message is due: the next poll's claim is in flight when stop runs,
		// and takes the message once Redis answers again (well within the client's 2 s command timeout)
		redis.get().call("CLIENT", "PAUSE", "1000", "WRITE");
		await().atMost(WAIT).until(() -> redis.get().call("INFO", "clients").matches("(?s).*blocked_clients:[1-9].*"));
		stopping.listeners().stop();

		assertThat(handled.get()).as("not run after stop").isZero();
		assertThat(stopping.listeners().getInFlight("in-flight")).isZero();
		assertThat(this.admin.stats("in-flight").inflight()).as("handed back").isZero();
		Recorder<String> next = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("in-flight", String.class, next));
		await().atMost(WAIT).until(() -> next.count("f-1") == 1);
		assertThat(next.received.get(0).message().attempt()).as("its attempt was not counted").isEqualTo(1);
	}

}
