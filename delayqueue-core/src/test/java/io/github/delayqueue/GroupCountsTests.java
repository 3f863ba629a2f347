package io.github.delayqueue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.TopGroups.GroupCount;
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

/**
 * Counts of many groups (the admin's top groups by waiting) on a real Redis, on a topic of one partition and of three:
 * ranked by waiting, exact sums across partitions, pause and in-flight counts, the bound said when it is reached.
 */
class GroupCountsTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final TopicPartitioning THREE = new TopicPartitioning(Map.of("split", 3));

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
		this.queue.setPartitioning(THREE);
		this.admin.setPartitioning(THREE);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	private void schedule(String topic, String group, int count) {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			requests.add(ScheduleRequest.builder(topic, i).id(group + "-" + i).group(group).build());
		}
		this.queue.scheduleAll(requests);
	}

	@Test
	void theGroupsWithTheMostWaitingComeFirstWithTheirPauseAndInFlightCounts() {
		schedule("tenants", "a", 30);
		schedule("tenants", "b", 10);
		schedule("tenants", "c", 20);
		schedule("tenants", "d", 5);
		this.admin.pauseGroup("tenants", "c");
		this.admin.setGroupCap("tenants", "d", 1);
		this.store.leases().claim("tenants", 9, 60_000, 10);

		TopGroups top = this.admin.topGroups("tenants", 3);

		assertThat(top.complete()).isTrue();
		assertThat(top.groups()).extracting(GroupCount::group).containsExactlyInAnyOrder("a", "b", "c");
		assertThat(top.groups()).extracting(GroupCount::waiting).isSortedAccordingTo(java.util.Comparator.reverseOrder());
		Map<String, GroupCount> byGroup = new java.util.HashMap<>();
		this.admin.topGroups("tenants", 10).groups().forEach((group) -> byGroup.put(group.group(), group));
		assertThat(byGroup.get("c").paused()).isTrue();
		assertThat(byGroup.get("c").waiting()).isEqualTo(20);
		assertThat(byGroup.get("c").inFlight()).isZero();
		assertThat(byGroup.get("a").paused()).isFalse();
		assertThat(byGroup.get("a").weight()).isEqualTo(1);
		// the claim took some of each group not paused; 'd' at its cap is held, and still listed with what waits
		assertThat(byGroup.get("a").inFlight()).isPositive();
		assertThat(byGroup.get("a").waiting() + byGroup.get("a").inFlight()).isEqualTo(30);
		assertThat(byGroup.get("b").waiting() + byGroup.get("b").inFlight()).isEqualTo(10);
		assertThat(byGroup.get("d").inFlight()).isEqualTo(1);
		assertThat(byGroup.get("d").waiting()).isEqualTo(4);
	}

	@Test
	void onATopicOfSeveralPartitionsEachGroupsCountsAreTheSumsOfItsPartitions() {
		schedule("split", "big", 90);
		schedule("split", "mid", 40);
		schedule("split", "small", 7);
		this.admin.pauseGroup("split", "small");

		TopGroups top = this.admin.topGroups("split", 2);

		assertThat(top.groups()).extracting(GroupCount::group, GroupCount::waiting)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("big", 90L), org.assertj.core.groups.Tuple.tuple("mid", 40L));
		assertThat(this.admin.topGroups("split", 5).groups()).last().satisfies((small) -> {
			assertThat(small.group()).isEqualTo("small");
			assertThat(small.waiting()).isEqualTo(7);
			assertThat(small.paused()).isTrue();
		});
		assertThat(this.admin.partitions("split")).isEqualTo(3);
	}

	@Test
	void aTopicWithMoreGroupsThanTheBoundSaysItsListIsTheTopOfThoseLookedAt() {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i <= TopGroups.LOOKED_AT; i++) {
			requests.add(ScheduleRequest.builder("many", i).id("m-" + i).group("g-" + i).build());
		}
		this.queue.scheduleAll(requests);
		schedule("few", "only", 3);

		assertThat(this.admin.topGroups("many", 10).complete()).isFalse();
		assertThat(this.admin.topGroups("many", 10).groups()).hasSize(10);
		assertThat(this.admin.topGroups("few", 10).complete()).isTrue();
		assertThat(this.admin.topGroups("nothing-here", 10).groups()).isEmpty();
	}

	@Test
	void aCountOutOfRangeOrABadTopicIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.topGroups("tenants", 0))
			.withMessageContaining("between 1 and 100");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.topGroups("tenants", 101));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.topGroups("bad topic", 5));
	}

	@Test
	void aWeightIsSetOnEveryPartitionAndShownWithTheCounts() {
		schedule("split", "gold", 6);

		assertThat(this.admin.setGroupWeight("split", "gold", 4).weight()).isEqualTo(4);

		assertThat(this.admin.groupControls("split", "gold").weight()).isEqualTo(4);
		assertThat(this.admin.topGroups("split", 1).groups()).singleElement()
			.satisfies((gold) -> assertThat(gold.weight()).isEqualTo(4));
		for (int partition = 0; partition < 3; partition++) {
			String key = RedisFixture.PREFIX + ":{split" + ((partition == 0) ? "" : "#" + partition) + "}:gcontrol";
			assertThat(redis.get().call("HGET", key, "w:gold")).as(key).isEqualTo("4");
		}
		assertThat(this.admin.setGroupWeight("split", "gold", null).weight()).isEqualTo(1);
	}

	@Test
	void aBadGroupKeyOrWeightIsRefusedAndWritesNothing() {
		schedule("split", "gold", 1);

		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setGroupWeight("split", "gold", 0))
			.withMessageContaining("between 1 and 100");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setGroupWeight("split", "gold", 101))
			.withMessageContaining("between 1 and 100");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setGroupWeight("split", "", 2))
			.withMessageContaining("must not be empty");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setGroupWeight("split", "g".repeat(65), 2))
			.withMessageContaining("at most 64");
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.setGroupWeight("unknown-topic", "gold", 2))
			.withMessageContaining("is not known");
		assertThat(this.admin.groupControls("split", "gold").weight()).isEqualTo(1);
		assertThat(RedisFixture.keysOf(redis.get(), "split")).noneMatch((key) -> key.endsWith(":gcontrol"));
	}

}
