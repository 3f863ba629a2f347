package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Groups as listeners live them: two application instances (each its own connection, scheduler and container) on
 * one topic, with a fallback poll far longer than the test waits, so that what happens at once happens because
 * consumers are woken. A group's cap and pause hold across both; groups with equal backlogs get equal shares.
 */
class GroupControlsTests {

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

	private void twoInstances(String topic, DelayedMessageHandler<Integer> handler, int concurrency) {
		ListenerOptions options = ListenerOptions.builder().concurrency(concurrency).build();
		for (int i = 0; i < 2; i++) {
			this.fixture.consumer(this.fixture.connectionFactory(), (factory) -> {
			}, NEVER_POLLED).listeners().register(ListenerRegistration.of(topic, Integer.class, handler, options));
		}
	}

	private void scheduleNow(String topic, String group, int count) {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(ScheduleRequest.builder(topic, i).id(group + "-" + i).group(group).build());
		}
		this.queue.scheduleAll(requests);
	}

	@Test
	void aGroupCapOfOneHoldsAcrossTwoInstancesWhileTheOtherGroupsRunBesideIt() {
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> mostRunning = new ConcurrentHashMap<>();
		Set<String> delivered = ConcurrentHashMap.newKeySet();
		DelayedMessageHandler<Integer> handler = (payload, message) -> {
			String group = message.group();
			int now = running.computeIfAbsent(group, (g) -> new AtomicInteger()).incrementAndGet();
			mostRunning.computeIfAbsent(group, (g) -> new AtomicInteger()).accumulateAndGet(now, Math::max);
			try {
				// the handler's work, not a wait for a condition: long enough that two of a group would overlap (and
				// be counted) if the cap let them, and that the uncapped group does overlap
				Thread.sleep(20);
			}
			finally {
				running.get(group).decrementAndGet();
			}
			delivered.add(message.id());
		};
		this.admin.registerTopics(List.of("tenants"));
		this.admin.setGroupCap("tenants", "serial", 1);
		twoInstances("tenants", handler, 4);

		scheduleNow("tenants", "serial", 20);
		scheduleNow("tenants", "wide", 40);

		await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() == 60);
		assertThat(mostRunning.get("serial").get()).as("never two of 'serial' at once, across both instances")
			.isEqualTo(1);
		assertThat(mostRunning.get("wide").get()).as("'wide' runs beside it, several at once").isGreaterThan(1);
		assertThat(this.admin.groupControls("tenants", "serial")).satisfies((state) -> {
			assertThat(state.inFlight()).isZero();
			assertThat(state.waiting()).isZero();
			assertThat(state.effectiveCap()).isEqualTo(1);
		});
	}

	@Test
	void threeGroupsWithEqualBacklogsGetEqualSharesAcrossTwoInstances() {
		List<String> order = new CopyOnWriteArrayList<>();
		DelayedMessageHandler<Integer> handler = (payload, message) -> order.add(message.group());
		scheduleNow("shares", "x", 300);
		scheduleNow("shares", "y", 300);
		scheduleNow("shares", "z", 300);

		twoInstances("shares", handler, 2);

		await().atMost(Duration.ofSeconds(30)).until(() -> order.size() == 900);
		// while all three had messages (the first half), each got its third, within 10 %
		Map<String, Integer> firstHalf = new ConcurrentHashMap<>();
		order.subList(0, 450).forEach((group) -> firstHalf.merge(group, 1, Integer::sum));
		assertThat(firstHalf).hasSize(3);
		assertThat(firstHalf.values()).allSatisfy((n) -> assertThat(n).isBetween(135, 165));
	}

	@Test
	void aPausedGroupDeliversNothingOnEitherInstanceWhileTheOthersFlowAndResumeDeliversItAtOnce() {
		Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
		DelayedMessageHandler<Integer> handler = (payload, message) -> delivered
			.computeIfAbsent(message.group(), (g) -> new AtomicInteger())
			.incrementAndGet();
		this.admin.registerTopics(List.of("pausing"));
		assertThat(this.admin.pauseGroup("pausing", "held").paused()).isTrue();
		twoInstances("pausing", handler, 2);

		scheduleNow("pausing", "held", 20);
		scheduleNow("pausing", "flowing", 20);

		await().atMost(Duration.ofSeconds(10))
			.until(() -> delivered.containsKey("flowing") && delivered.get("flowing").get() == 20);
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
			.until(() -> !delivered.containsKey("held"));
		assertThat(this.admin.groupControls("pausing", "held")).satisfies((state) -> {
			assertThat(state.paused()).isTrue();
			assertThat(state.waiting()).isEqualTo(20);
		});

		assertThat(this.admin.resumeGroup("pausing", "held").paused()).isFalse();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> delivered.containsKey("held") && delivered.get("held").get() == 20);
		assertThat(delivered.get("flowing").get()).isEqualTo(20);
	}

}
