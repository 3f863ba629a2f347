package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.test.TestRedisExtension;
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

	private RedisDelayedQueue queue;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
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
		assertThat(survivor.received.get(0).message().attempt()).isEqualTo(2);
		assertThat(survivor.received.get(0).message().isRedelivery()).isTrue();
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "crash").isEmpty());
	}

	@Test
	void aConsumerThatStoodStillPastTheLeaseBeforeTheHandlerStartedDoesNotStartIt() {
		ListenerOptions options = ListenerOptions.builder().visibilityTimeout(Duration.ofSeconds(1)).build();
		LettuceConnectionFactory stalledConnection = this.fixture.connectionFactory();
		Recorder<String> survivor = new Recorder<>();
		CountDownLatch standingStill = new CountDownLatch(1);
		CountDownLatch goneOn = new CountDownLatch(1);
		// the JVM stands still (a long GC pause, SIGSTOP) between the claim and the handler's start, until another
		// consumer has had the message
		RedisFixture.Consumer stalled = this.fixture.consumer(stalledConnection,
				(factory) -> factory.setTaskDecorator((handling) -> () -> {
					standingStill.countDown();
					await().atMost(WAIT).until(() -> survivor.count("p-1") == 1);
					handling.run();
					goneOn.countDown();
				}));
		AtomicInteger stalledHandled = new AtomicInteger();
		stalled.listeners().register(ListenerRegistration.of("pause", String.class,
				(payload, message) -> stalledHandled.incrementAndGet(), options));
		this.queue.schedule("pause", "p-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> standingStill.getCount() == 0);
		// frozen: its leases are not extended either
		stalledConnection.destroy();

		this.fixture.consumer().listeners().register(ListenerRegistration.of("pause", String.class, survivor, options));
		await().atMost(WAIT).until(() -> survivor.count("p-1") == 1);

		await().atMost(WAIT).until(() -> goneOn.getCount() == 0);
		assertThat(stalledHandled.get()).as("the stalled consumer's handler must not start on a lease that ran out")
			.isZero();
		assertThat(survivor.count("p-1")).isEqualTo(1);
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
		assertThat(this.queue.stats("slow").inflight()).isEqualTo(1);

		this.release.countDown();
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "slow").isEmpty());
		assertThat(deliveries.get()).isEqualTo(1);
	}

	@Test
	void stopHandsUnfinishedMessagesBackAtOnce() {
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
		assertThat(next.received.get(0).message().attempt()).as("a handed-back attempt is not counted").isEqualTo(1);
		assertThat(interrupted.get()).isEqualTo(1);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "handback").isEmpty());
	}

	@Test
	void aConsumerLeasesOnlyWhatItsFreeHandlersRunAndNothingElseIsCharged() {
		ListenerOptions options = ListenerOptions.builder()
			.concurrency(1)
			.batchSize(10)
			.visibilityTimeout(Duration.ofMinutes(5))
			.build();
		RedisFixture.Consumer stopping = this.fixture.consumer();
		stopping.listeners().setShutdownTimeout(Duration.ofMillis(200));
		AtomicInteger started = new AtomicInteger();
		stopping.listeners().register(ListenerRegistration.of("waiting", String.class, (payload, message) -> {
			started.incrementAndGet();
			this.release.await();
		}, options));
		for (int i = 0; i < 5; i++) {
			this.queue.schedule("waiting", "w-" + i, "x", Duration.ZERO);
		}
		// one handler runs its message; the other four stay in Redis for any consumer to take
		await().atMost(WAIT).until(() -> started.get() == 1 && this.queue.stats("waiting").ready() == 4);
		assertThat(this.queue.stats("waiting").inflight()).as("only the running message is leased").isEqualTo(1);
		stopping.listeners().stop();
		assertThat(started.get()).isEqualTo(1);
		assertThat(this.queue.stats("waiting").inflight()).as("the unfinished one is handed back").isZero();

		Recorder<String> next = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("waiting", String.class, next, options));
		await().atMost(WAIT).until(() -> next.received.size() == 5);
		assertThat(next.received).allSatisfy((received) -> assertThat(received.message().attempt())
			.as("neither a handed-back nor a never-leased message is charged").isEqualTo(1));
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
		await().atMost(WAIT).until(() -> stopping.listeners().getInFlight("in-flight") > 0);
		stopping.listeners().stop();

		assertThat(handled.get()).as("not run after stop").isZero();
		assertThat(stopping.listeners().getInFlight("in-flight")).isZero();
		assertThat(this.queue.stats("in-flight").inflight()).as("handed back").isZero();
		Recorder<String> next = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("in-flight", String.class, next));
		await().atMost(WAIT).until(() -> next.count("f-1") == 1);
		assertThat(next.received.get(0).message().attempt()).as("its attempt was not counted").isEqualTo(1);
	}

}
