package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Claims.groupsOf;
import static io.github.delayqueue.redis.internal.Claims.ids;
import static io.github.delayqueue.redis.internal.Claims.leases;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Per-group rate limits in the scripts, on a real Redis: a token bucket per group on the Redis clock held for every
 * consumer, a group out of tokens waiting out of turn until its next token (so claims read nothing of it meanwhile),
 * the topic's default and a group's own rate, and bad input refused.
 */
class GroupRateClaimTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "rated";

	/** The commands of a hand-back of four leases of two groups without group rates (as before tokens went back). */
	private static final long HAND_BACK_OF_TWO_GROUPS = 18;

	@Test
	void aGroupGetsNoMoreThanItsTokensAcrossConsumersWhileTheOthersFlow() {
		RedisMessageStore other = redis.fixture().store(redis.fixture().connectionFactory());
		assertThat(redis.store().controls().rateGroup(TOPIC, "slow", 2.0).ratePerSecond()).isEqualTo(2.0);
		scheduleMany("slow", 20);
		scheduleMany("fast", 20);

		Map<String, Integer> first = groupsOf(redis.store().leases().claim(TOPIC, 10, LEASE, 10));
		Map<String, Integer> second = groupsOf(other.leases().claim(TOPIC, 10, LEASE, 10));

		// a full bucket holds one second's tokens: 2, for both consumers together
		assertThat(first.getOrDefault("slow", 0) + second.getOrDefault("slow", 0)).isEqualTo(2);
		assertThat(first.get("fast") + second.get("fast")).isGreaterThanOrEqualTo(10);
		// out of tokens: its turn waits for the next one, so a claim now does not read it
		double turn = Double.parseDouble(redis.get().call("ZSCORE", key("groups"), "slow"));
		assertThat(turn).isGreaterThan(redis.fixture().redisTime().toEpochMilli());
		assertThat(groupsOf(other.leases().claim(TOPIC, 10, LEASE, 10))).doesNotContainKey("slow");
		// and when it comes, the group runs again
		await().atMost(Duration.ofSeconds(5)).until(() -> groupsOf(redis.store().leases().claim(TOPIC, 10, LEASE, 10))
			.containsKey("slow"));
	}

	@Test
	void theTopicsDefaultRateHoldsForEveryGroupAndAGroupsOwnRateOverridesIt() {
		redis.store().controls().rateGroup(TOPIC, null, 1.0);
		redis.store().controls().rateGroup(TOPIC, "big", 3.0);
		scheduleMany("small", 10);
		scheduleMany("big", 10);
		scheduleMany("other", 10);

		Map<String, Integer> leased = new HashMap<>();
		for (int i = 0; i < 3; i++) {
			groupsOf(redis.store().leases().claim(TOPIC, 10, LEASE, 10))
				.forEach((group, n) -> leased.merge(group, n, Integer::sum));
		}

		assertThat(leased).containsEntry("small", 1).containsEntry("other", 1).containsEntry("big", 3);
		assertThat(redis.store().controls().readGroup(TOPIC, "small")).satisfies((state) -> {
			assertThat(state.ratePerSecond()).isNull();
			assertThat(state.defaultRatePerSecond()).isEqualTo(1.0);
		});
	}

	@Test
	void aWeightedGroupTakesNoMoreThanItsTokensAndTheOthersTakeWhatItsRateHoldsBack() {
		redis.store().controls().weighGroup(TOPIC, "heavy", 3);
		redis.store().controls().rateGroup(TOPIC, "heavy", 2.0);
		scheduleMany("heavy", 20);
		scheduleMany("light", 20);

		Claim claim = redis.store().leases().claim(TOPIC, 8, LEASE, 10);

		// weight 3 would give heavy six of the eight; its bucket holds two, and light takes the rest
		assertThat(claim.messages()).hasSize(8);
		assertThat(groupsOf(claim)).containsEntry("heavy", 2).containsEntry("light", 6);
		// out of tokens: its turn waits for its next token, and it is owed nothing for the share it could not take
		double turn = Double.parseDouble(redis.get().call("ZSCORE", key("groups"), "heavy"));
		assertThat(turn).isGreaterThan(redis.fixture().redisTime().toEpochMilli());
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "d:heavy")).isEqualTo("0");
	}

	@Test
	void aSmallClaimGivesTheShareARateHoldsBackToTheNextGroupInTurn() {
		redis.store().controls().weighGroup(TOPIC, "heavy", 3);
		redis.store().controls().rateGroup(TOPIC, "heavy", 1.0);
		scheduleMany("heavy", 5);
		scheduleMany("light", 5);

		// room for two: heavy's weight would take both, its one token takes one, and light gets the other
		assertThat(groupsOf(redis.store().leases().claim(TOPIC, 2, LEASE, 10))).containsEntry("heavy", 1)
			.containsEntry("light", 1);
	}

	@Test
	void clearingARateLetsTheGroupRunAtOnce() {
		redis.store().controls().rateGroup(TOPIC, "slow", 1.0);
		scheduleMany("slow", 10);
		assertThat(groupsOf(redis.store().leases().claim(TOPIC, 10, LEASE, 10))).containsEntry("slow", 1);

		redis.store().controls().rateGroup(TOPIC, "slow", null);

		assertThat(groupsOf(redis.store().leases().claim(TOPIC, 10, LEASE, 10))).containsEntry("slow", 9);
	}

	@Test
	void aRateOfZeroOrBelowIsRefusedAndChangesNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> redis.store().controls().rateGroup(TOPIC, "a", 0.0))
			.withMessageContaining("must be positive");
		assertThatIllegalArgumentException().isThrownBy(() -> redis.store().controls().rateGroup(TOPIC, null, -1.0))
			.withMessageContaining("must be positive");
		assertThat(redis.get().call("EXISTS", key("gcontrol"), key("control"))).isEqualTo("0");
	}

	@Test
	void aGroupRateCostsAClaimOneReadAndOneWriteAndATopicWithoutOneNothing() {
		Map<String, Long> plain = claimOfTwoGroups("plain");
		redis.store().controls().rateGroup(TOPIC, "a", 1000.0);
		Map<String, Long> rated = claimOfTwoGroups(TOPIC);

		Map<String, Long> extra = new java.util.TreeMap<>(rated);
		plain.forEach((name, calls) -> extra.merge(name, -calls, Long::sum));
		extra.values().removeIf((calls) -> calls == 0);
		// the buckets of the groups picked (one HMGET) and what they spent (one HSET)
		assertThat(extra).containsExactlyInAnyOrderEntriesOf(Map.of("hmget", 1L, "hset", 1L));
		assertThat(redis.get().call("EXISTS", RedisFixture.PREFIX + ":{plain}:gcontrol")).isEqualTo("0");
	}

	@Test
	void messagesHandedBackUnstartedGiveTheirTokensBackToTheirGroupsBucketUpToItsBurst() {
		scheduleMany("slow", 6);
		// three leased before the group had a rate: their leases spent no token of it
		Claim before = redis.store().leases().claim(TOPIC, 3, LEASE, 10);
		assertThat(groupsOf(before)).containsExactlyEntriesOf(Map.of("slow", 3));
		// a token every ten seconds, one saved up: the test runs on that one
		redis.store().controls().rateGroup(TOPIC, "slow", 0.1);
		Claim first = redis.store().leases().claim(TOPIC, 10, LEASE, 10);
		assertThat(groupsOf(first)).containsExactlyEntriesOf(Map.of("slow", 1));

		assertThat(redis.store().leases().release(TOPIC, leases(first))).isEqualTo(1);

		Claim again = redis.store().leases().claim(TOPIC, 10, LEASE, 10);
		assertThat(ids(again)).as("leased anew on the token it gave back").isEqualTo(ids(first));
		assertThat(redis.store().leases().release(TOPIC, leases(again))).isEqualTo(1);
		// four handed back with one token in the bucket: it holds one second's tokens at most, one
		assertThat(redis.store().leases().release(TOPIC, leases(before))).isEqualTo(3);
		assertThat(groupsOf(redis.store().leases().claim(TOPIC, 10, LEASE, 10))).as("no token beyond the burst")
			.containsExactlyEntriesOf(Map.of("slow", 1));
		assertThat(redis.store().leases().claim(TOPIC, 10, LEASE, 10).messages()).isEmpty();
	}

	@Test
	void aLostClaimUndoneGivesItsTokensBackToItsGroupsBucket() {
		redis.store().controls().rateGroup(TOPIC, "slow", 0.1);
		scheduleMany("slow", 3);
		Claimant claimant = Claimant.create();
		Claimant standIn = Claimant.create();
		Claim lost = redis.store().leases().claim(TOPIC, standIn, List.of(), 10, LEASE, 10, false, 0);
		assertThat(groupsOf(lost)).containsExactlyEntriesOf(Map.of("slow", 1));
		ClaimRecords.move(redis.get(), TOPIC, standIn, claimant, 1);
		// the claimant sent it, and its reply never came
		claimant.next();

		// undoes the lost claim, then leases its message anew on the token it gave back
		Claim next = redis.store().leases().claim(TOPIC, claimant, List.of(), 10, LEASE, 10, false, 0);

		assertThat(ids(next)).isEqualTo(ids(lost));
		assertThat(redis.store().leases().claim(TOPIC, 10, LEASE, 10).messages()).as("no token beyond it").isEmpty();
	}

	@Test
	void aHandBackCostsATopicWithGroupRatesOneReadAndOneWriteAndATopicWithoutThemNothing() {
		Map<String, Long> plain = handBackOfTwoGroups("plain");
		redis.store().controls().rateGroup(TOPIC, "a", 1000.0);
		Map<String, Long> rated = handBackOfTwoGroups(TOPIC);
		System.out.printf("hand-back cost: without group rates %s, with them %s%n", plain, rated);

		Map<String, Long> extra = new java.util.TreeMap<>(rated);
		plain.forEach((name, calls) -> extra.merge(name, -calls, Long::sum));
		extra.values().removeIf((calls) -> calls == 0);
		// the buckets of the groups handed back (one HMGET) and the tokens given back (one HSET)
		assertThat(extra).containsExactlyInAnyOrderEntriesOf(Map.of("hmget", 1L, "hset", 1L));
		// and a topic without group rates runs what it ran before tokens were given back
		assertThat(CommandCounts.total(plain)).isEqualTo(HAND_BACK_OF_TWO_GROUPS);
	}

	/** The commands of a hand-back of four leases of two groups (two each). */
	private Map<String, Long> handBackOfTwoGroups(String topic) {
		scheduleTenOfEachGroup(topic);
		Claim claim = redis.store().leases().claim(topic, 4, LEASE, 10);
		assertThat(groupsOf(claim)).containsExactlyInAnyOrderEntriesOf(Map.of("a", 2, "b", 2));
		CommandCounts counts = new CommandCounts(redis.get());
		assertThat(redis.store().leases().release(topic, leases(claim))).isEqualTo(4);
		return counts.sinceLast();
	}

	/** The commands of a claim of ten in a topic with two groups of ten due messages each (after a first claim). */
	private Map<String, Long> claimOfTwoGroups(String topic) {
		scheduleTenOfEachGroup(topic);
		redis.store().leases().claim(topic, 2, LEASE, 10);
		CommandCounts counts = new CommandCounts(redis.get());
		assertThat(redis.store().leases().claim(topic, 4, LEASE, 10).messages()).hasSize(4);
		return counts.sinceLast();
	}

	private void scheduleMany(String group, int count) {
		Scheduling.scheduleAll(redis.store(), TOPIC, Scheduling.many(group, count, group, Duration.ZERO));
	}

	/** Ten messages due now in each of the groups {@code a} and {@code b} of a topic. */
	private void scheduleTenOfEachGroup(String topic) {
		for (String group : List.of("a", "b")) {
			redis.store().messages().schedule(topic, Scheduling.many(group, 10, group, Duration.ZERO));
		}
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
