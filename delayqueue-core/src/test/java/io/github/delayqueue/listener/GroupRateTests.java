package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.GroupControlState;
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
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A group's rate limit as listeners live it: two application instances (each its own connection, scheduler and
 * container) on one topic, with a fallback poll far longer than the test waits, so that a group waiting for its next
 * token is woken by the claims' own wake-up delay. The rate holds across both instances (its starts are never ahead
 * of the bucket: checked as a lower bound on their times, which a slow machine can only make later), while the other
 * group flows.
 */
class GroupRateTests {

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

	@Test
	void aGroupRateHoldsAcrossTwoInstancesWhileTheOtherGroupFlows() {
		Map<String, List<Long>> starts = new ConcurrentHashMap<>();
		DelayedMessageHandler<Integer> handler = (payload, message) -> starts
			.computeIfAbsent(message.group(), (g) -> new CopyOnWriteArrayList<>())
			.add(System.nanoTime());
		this.admin.registerTopics(List.of("metered"));
		GroupControlState set = this.admin.setGroupRate("metered", "slow", 4.0);
		assertThat(set.ratePerSecond()).isEqualTo(4.0);
		ListenerOptions options = ListenerOptions.builder().concurrency(2).build();
		for (int i = 0; i < 2; i++) {
			this.fixture.consumer(this.fixture.connectionFactory(), (factory) -> {
			}, NEVER_POLLED).listeners().register(ListenerRegistration.of("metered", Integer.class, handler, options));
		}

		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 12; i++) {
			requests.add(ScheduleRequest.builder("metered", i).id("slow-" + i).group("slow").build());
		}
		for (int i = 0; i < 40; i++) {
			requests.add(ScheduleRequest.builder("metered", i).id("wide-" + i).group("wide").build());
		}
		this.queue.scheduleAll(requests);

		await().atMost(Duration.ofSeconds(30))
			.until(() -> starts.containsKey("slow") && starts.get("slow").size() == 12);
		assertThat(starts.get("wide")).hasSize(40);
		// a full bucket holds 4 tokens, then one comes every 250 ms: the k-th start (from 0) is no earlier than
		// (k - 3) × 250 ms after the first (less 100 ms for the clocks of two instances)
		List<Long> slow = starts.get("slow").stream().sorted().toList();
		for (int k = 4; k < slow.size(); k++) {
			long afterFirstMs = (slow.get(k) - slow.get(0)) / 1_000_000;
			assertThat(afterFirstMs).as("start %d of 'slow', ms after the first", k).isGreaterThanOrEqualTo((k - 3) * 250L - 100);
		}
		// the other group was not held back by it
		long wideDone = starts.get("wide").stream().max(Long::compare).orElseThrow();
		assertThat(wideDone).isLessThan(slow.get(slow.size() - 1));
		assertThat(this.admin.groupControls("metered", "slow").effectiveRatePerSecond()).isEqualTo(4.0);
	}

	@Test
	void aRateOfZeroIsRefusedAndChangesNothing() {
		this.admin.registerTopics(List.of("metered"));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setGroupRate("metered", "slow", 0.0))
			.withMessage("Group rate limit must be positive, but was 0.0 (pause the group to stop its deliveries)");
		assertThat(this.admin.groupControls("metered", "slow").effectiveRatePerSecond()).isNull();
	}

}
