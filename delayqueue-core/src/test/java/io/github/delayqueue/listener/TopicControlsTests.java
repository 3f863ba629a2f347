package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Pause, the concurrency cap and the handler timeout as listeners live them: two application instances (each its
 * own connection, scheduler and container) on one topic, with a fallback poll far longer than the test waits, so that
 * what happens at once happens because consumers are woken.
 */
class TopicControlsTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration NEVER_POLLED = Duration.ofMinutes(5);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

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

	private RedisFixture.Consumer instance() {
		return instance((factory) -> {
		});
	}

	private RedisFixture.Consumer instance(
			java.util.function.Consumer<io.github.delayqueue.config.DefaultDelayedListenerContainerFactory> customizer) {
		return this.fixture.consumer(this.fixture.connectionFactory(), customizer, NEVER_POLLED);
	}

	private void scheduleNow(String topic, int count) {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(ScheduleRequest.builder(topic, i).id(topic + "-" + i).build());
		}
		this.queue.scheduleAll(requests);
	}

	@Test
	void aPauseHoldsBothInstancesAndAResumeDeliversWhatIsDueAtOnce() {
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		DelayedMessageHandler<Integer> handler = (payload, message) -> deliveries
			.computeIfAbsent(message.id(), (id) -> new AtomicInteger())
			.incrementAndGet();
		ListenerOptions options = ListenerOptions.builder().concurrency(2).build();
		instance().listeners().register(ListenerRegistration.of("pausable", Integer.class, handler, options));

		RedisFixture.Consumer second = instance();
		second.listeners().register(ListenerRegistration.of("pausable", Integer.class, handler, options));
		// paused through one instance's registry: held on every instance, since the state is in Redis
		second.listeners().registry().pauseTopic("pausable");
		assertThat(this.admin.controls("pausable").paused()).isTrue();
		scheduleNow("pausable", 30);
		await().during(Duration.ofMillis(700)).atMost(Duration.ofSeconds(5)).until(deliveries::isEmpty);
		assertThat(this.admin.controls("pausable").paused()).isTrue();
		assertThat(this.admin.stats("pausable").ready()).isEqualTo(30);

		assertThat(second.listeners().registry().getListenerContainerForTopic("pausable").isTopicPaused()).isTrue();
		this.admin.resume("pausable");
		await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.size() == 30
				&& RedisFixture.keysOf(redis.get(), "pausable").stream().noneMatch((key) -> key.endsWith(":pending")));
		assertThat(deliveries.values()).allMatch((count) -> count.get() == 1);
	}

	@Test
	void theCapHoldsAcrossTwoInstancesAndAFreedSlotWakesTheConsumers() {
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostRunning = new AtomicInteger();
		Set<String> delivered = ConcurrentHashMap.newKeySet();
		// handlers hold their slot until the test lets them go, so the test sees the cap full
		Semaphore gate = new Semaphore(0);
		DelayedMessageHandler<Integer> handler = (payload, message) -> {
			int now = running.incrementAndGet();
			mostRunning.accumulateAndGet(now, Math::max);
			try {
				assertThat(gate.tryAcquire(30, TimeUnit.SECONDS)).as("let go by the test").isTrue();
			}
			finally {
				running.decrementAndGet();
			}
			delivered.add(message.id());
		};
		this.admin.registerTopics(List.of("capped"));
		this.admin.setLimits("capped", TopicLimits.NONE.withMaxInFlight(2));
		ListenerOptions options = ListenerOptions.builder().concurrency(4).build();
		instance().listeners().register(ListenerRegistration.of("capped", Integer.class, handler, options));
		instance().listeners().register(ListenerRegistration.of("capped", Integer.class, handler, options));
		scheduleNow("capped", 6);

		for (int round = 1; round <= 3; round++) {
			// the cap fills up: two handlers run, out of eight free across both instances
			await().atMost(Duration.ofSeconds(10)).until(() -> running.get() == 2);
			// and no third starts while they hold their slots
			await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> running.get() <= 2);
			int done = delivered.size();
			gate.release(2);
			// the slots they free wake the consumers (their fallback poll is minutes away)
			await().atMost(Duration.ofSeconds(10)).until(() -> delivered.size() == done + 2);
		}
		assertThat(delivered).hasSize(6);
		assertThat(mostRunning.get()).as("never more than the cap in flight, across both").isEqualTo(2);
	}

	@Test
	void aHandlerBeyondItsTimeoutIsInterruptedAndItsMessageAttemptedAgain() {
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		List<Boolean> interrupted = new CopyOnWriteArrayList<>();
		AtomicInteger timeouts = new AtomicInteger();
		DelayedMessageHandler<Integer> handler = (payload, message) -> {
			attempts.add(message.attempt());
			if (message.attempt() == 1) {
				try {
					// blocks until the handler timeout interrupts it
					new CountDownLatch(1).await(60, TimeUnit.SECONDS);
				}
				catch (InterruptedException ex) {
					interrupted.add(true);
					Thread.currentThread().interrupt();
				}
			}
		};
		RedisFixture.Consumer consumer = instance((factory) -> factory.getContainerProperties()
			.setMonitor(new DelayQueueMonitor() {
				@Override
				public void handlerTimedOut(String topic) {
					timeouts.incrementAndGet();
				}
			}));
		ListenerOptions options = ListenerOptions.builder()
			.handlerTimeout(Duration.ofMillis(300))
			.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(50, 5)))
			.build();
		consumer.listeners().register(ListenerRegistration.of("slow", Integer.class, handler, options));
		scheduleNow("slow", 1);

		await().atMost(Duration.ofSeconds(15)).until(() -> attempts.contains(2)
				&& RedisFixture.keysOf(redis.get(), "slow").stream().noneMatch((key) -> key.endsWith(":pending")));
		assertThat(interrupted).containsExactly(true);
		assertThat(attempts).containsExactly(1, 2);
		assertThat(timeouts.get()).isEqualTo(1);
	}

}
