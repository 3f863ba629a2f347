package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.Listeners;
import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.wakeup.WakeUpTimer;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A listener's error handler decides what becomes of a failed delivery, and neither it nor a failing monitor can
 * lose a message or a handler thread.
 */
class ErrorHandlingTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private final List<DelayQueueMonitor.Outcome> outcomes = new CopyOnWriteArrayList<>();

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore queueStore = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(queueStore);
		this.admin = this.fixture.admin(queueStore);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void anErrorHandlerThatDealsWithAFailureHasTheMessageAcknowledged() {
		AtomicInteger calls = new AtomicInteger();
		List<String> sentElsewhere = new CopyOnWriteArrayList<>();
		Listeners container = container();
		container.register(ListenerRegistration.of("recovered", String.class, (payload, message) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("payment service down");
		}, ListenerOptions.builder().errorHandler((message, failure) -> {
			sentElsewhere.add(message.id() + ": " + failure.getMessage());
			return FailureAction.acknowledge();
		}).build()));
		this.queue.schedule("recovered", "r-1", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "recovered").isEmpty());
		assertThat(calls.get()).as("not retried").isEqualTo(1);
		assertThat(sentElsewhere).containsExactly("r-1: payment service down");
		assertThat(this.admin.deadLetters("recovered", 0, 10)).isEmpty();
		await().atMost(WAIT).until(() -> this.outcomes.contains(DelayQueueMonitor.Outcome.RECOVERED));
	}

	@Test
	void anErrorHandlerCanSendAMessageToTheDeadLettersOnItsFirstFailure() {
		Listeners container = container();
		container.register(ListenerRegistration.of("strict", String.class, (payload, message) -> {
			throw new IllegalStateException("no second chance");
		}, ListenerOptions.builder().maxAttempts(5).errorHandler((message, failure) -> FailureAction.deadLetter()).build()));
		this.queue.schedule("strict", "s-1", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> !this.admin.deadLetters("strict", 0, 10).isEmpty());
		DeadLetter letter = this.admin.deadLetters("strict", 0, 10).get(0);
		assertThat(letter.attempts()).isEqualTo(1);
		assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: no second chance");
	}

	@Test
	void theListenersMaxAttemptsBoundTheRetriesAnErrorHandlerAsksFor() {
		AtomicInteger calls = new AtomicInteger();
		Listeners container = container();
		container.register(ListenerRegistration.of("bounded", String.class, (payload, message) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("always");
		}, ListenerOptions.builder()
			.maxAttempts(3)
			.errorHandler((message, failure) -> FailureAction.retryIn(Duration.ZERO))
			.build()));
		this.queue.schedule("bounded", "b-1", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> !this.admin.deadLetters("bounded", 0, 10).isEmpty());
		assertThat(this.admin.deadLetters("bounded", 0, 10).get(0).attempts()).isEqualTo(3);
		assertThat(calls.get()).isEqualTo(3);
	}

	@Test
	void anErrorHandlerThatThrowsFallsBackToTheDefaultRetry() {
		Recorder<String> recorder = new Recorder<>();
		AtomicInteger failures = new AtomicInteger();
		Listeners container = container();
		container.register(ListenerRegistration.of("fallback", String.class, (payload, message) -> {
			if (failures.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt fails");
			}
			recorder.handle(payload, message);
		}, ListenerOptions.builder()
			.errorHandler((message, failure) -> {
				throw new IllegalArgumentException("broken error handler");
			})
			.build()));
		this.queue.schedule("fallback", "f-1", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> recorder.count("f-1") == 1);
		assertThat(recorder.received.get(0).message().attempt()).isEqualTo(2);
	}

	@Test
	void aMonitorThatThrowsNeitherLosesTheMessageNorAHandlerThread() {
		DelayQueueMonitor throwing = new DelayQueueMonitor() {

			@Override
			public void dispatched(String topic, long latenessMillis) {
				throw new IllegalStateException("monitor down");
			}

			@Override
			public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception) {
				throw new IllegalStateException("monitor down");
			}

		};
		Listeners container = this.fixture
			.consumer(this.fixture.connectionFactory(), (c) -> c.getContainerProperties().setMonitor(throwing))
			.listeners();
		Recorder<String> recorder = new Recorder<>();
		container.register(ListenerRegistration.of("monitored", String.class, recorder,
				ListenerOptions.builder().concurrency(1).build()));
		for (int i = 0; i < 3; i++) {
			this.queue.schedule("monitored", "m-" + i, "x", Duration.ZERO);
		}

		await().atMost(WAIT).until(() -> recorder.received.size() == 3
				&& RedisFixture.keysOf(redis.get(), "monitored").isEmpty());
		assertThat(recorder.received).allSatisfy((received) -> assertThat(received.message().attempt()).isEqualTo(1));
		await().atMost(WAIT).until(() -> container.getInFlight("monitored") == 0);
	}

	@Test
	void aRegistryThatCannotStartAListenerStartsNothing() {
		RedisFixture.Consumer first = this.fixture.consumer();
		first.listeners().register(ListenerRegistration.of("taken", String.class, new Recorder<>()));
		// a second registry on the same scheduler cannot take the same topic's wake channel
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(first.store(),
				this.fixture.converter(), first.scheduler());
		DelayedListenerEndpointRegistry second = new DelayedListenerEndpointRegistry();
		Recorder<String> other = new Recorder<>();
		second.registerListenerContainer(SimpleDelayedListenerEndpoint.of("other", String.class, other), factory);
		second.registerListenerContainer(SimpleDelayedListenerEndpoint.of("taken", String.class, new Recorder<>()),
				factory);
		assertThatIllegalStateException().isThrownBy(second::start).withMessageContaining("registered already");
		assertThat(second.isRunning()).isFalse();
		assertThat(second.getListenerStates()).hasSize(2).noneMatch(ListenerState::running);

		// nothing of it consumes: once the first gives the topic up, the second starts whole
		this.queue.schedule("other", "o-1", "x", Duration.ZERO);
		assertThat(first.listeners().unregister("taken")).isTrue();
		second.start();
		try {
			await().atMost(WAIT).until(() -> other.count("o-1") == 1);
			assertThat(second.getListenerStates()).allMatch(ListenerState::running);
		}
		finally {
			second.stop();
		}
	}

	@Test
	void theLeaseIsExtendedWhileASlowErrorHandlerDecides() {
		AtomicInteger calls = new AtomicInteger();
		Listeners container = container();
		container.register(ListenerRegistration.of("slow-decision", String.class, (payload, message) -> {
			calls.incrementAndGet();
			throw new IllegalStateException("fails");
		}, ListenerOptions.builder()
			.concurrency(2)
			.visibilityTimeout(Duration.ofMillis(300))
			.errorHandler((message, failure) -> {
				// five leases long: the message must not be redelivered meanwhile
				long until = System.nanoTime() + Duration.ofMillis(1500).toNanos();
				while (System.nanoTime() < until) {
					java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
				}
				return FailureAction.acknowledge();
			})
			.build()));
		this.queue.schedule("slow-decision", "s-1", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "slow-decision").isEmpty());
		assertThat(calls.get()).as("handled once").isEqualTo(1);
	}

	@Test
	void aHandlerWhoseNextMessageWasBuriedLeavesTheRestToAClaimAtOnce() {
		// a poll far longer than the test: only a claim asked for by the consumer itself can deliver b and c
		LettuceConnectionFactory factory = this.fixture.connectionFactory();
		WakeUpTimer scheduler = new WakeUpTimer(factory, Duration.ofMillis(5),
				Duration.ofMinutes(5));
		DefaultDelayedListenerContainerFactory containerFactory = new DefaultDelayedListenerContainerFactory(
				this.fixture.store(factory), this.fixture.converter(), scheduler);
		for (String id : List.of("m0", "a", "b", "c")) {
			this.queue.schedule("buried-next", id, id, Duration.ZERO);
		}
		// 'a' has used its only attempt: the handover after m0 buries it and leases nothing
		redis.get().call("HSET", RedisFixture.PREFIX + ":{buried-next}:tries", "a", "1");
		Recorder<String> recorder = new Recorder<>();
		DelayedListenerContainer container = containerFactory.createListenerContainer(
				SimpleDelayedListenerEndpoint.from(ListenerRegistration.of("buried-next", String.class, recorder,
						ListenerOptions.builder().concurrency(1).maxAttempts(1).build())));
		scheduler.start();
		container.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> recorder.received.size() == 3);
			assertThat(recorder.ids()).containsExactly("m0", "b", "c");
			assertThat(this.admin.deadLetters("buried-next", 0, 10)).extracting(DeadLetter::id).containsExactly("a");
		}
		finally {
			container.stop();
			scheduler.stop();
		}
	}

	private Listeners container() {
		DelayQueueMonitor recording = new DelayQueueMonitor() {

			@Override
			public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception) {
				ErrorHandlingTests.this.outcomes.add(outcome);
			}

		};
		return this.fixture.consumer(this.fixture.connectionFactory(), (c) -> c.getContainerProperties().setMonitor(recording)).listeners();
	}

}
