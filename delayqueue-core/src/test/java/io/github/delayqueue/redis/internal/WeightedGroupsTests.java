package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Weighted turns among groups in the claim script, on a real Redis: a group of weight 3 gets three times the share of
 * a group of weight 1 while both have messages due, whether a claim has room for every weight or not, and beside the
 * messages without a group (one more group of weight 1).
 */
class WeightedGroupsTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "weighted";

	@Test
	void aGroupOfWeightThreeGetsThreeTimesTheShareOfAGroupOfWeightOne() {
		redis.store().controls().weighGroup(TOPIC, "heavy", 3);
		schedule("heavy", 600);
		schedule("light", 600);

		Map<String, Integer> delivered = drain(8, 400);

		assertThat(ratio(delivered, "heavy", "light")).isBetween(2.7, 3.3);
	}

	@Test
	void theWeightsHoldWhenAClaimHasLessRoomThanTheyAddUpTo() {
		redis.store().controls().weighGroup(TOPIC, "heavy", 3);
		schedule("heavy", 600);
		schedule("light", 600);
		schedule("other", 600);

		Map<String, Integer> delivered = drain(2, 500);

		assertThat(ratio(delivered, "heavy", "light")).isBetween(2.7, 3.3);
		assertThat(ratio(delivered, "other", "light")).isBetween(0.9, 1.1);
	}

	@Test
	void theMessagesWithoutAGroupCountAsOneGroupOfWeightOne() {
		redis.store().controls().weighGroup(TOPIC, "heavy", 3);
		schedule("heavy", 600);
		schedule(null, 600);

		Map<String, Integer> delivered = drain(8, 400);

		assertThat(ratio(delivered, "heavy", "")).isBetween(2.7, 3.3);
	}

	@Test
	void aGroupCutShortThatTakesMoreLaterInTheClaimOwesNothingAndEveryMessageIsDelivered() {
		// two groups of weight 3, one with a single message: a claim of 4 gives the first 3 and the second 1 (cut short
		// of its 3); the first takes its one message, so the room left goes to the second, which ends with all it was
		// owed or more. It once kept a debt of zero or below: its next share was none, it lost its turn (or blocked the
		// groups behind it), and its messages waited for ever
		redis.store().controls().weighGroup(TOPIC, "one", 3);
		redis.store().controls().weighGroup(TOPIC, "many", 3);
		schedule("one", 1);
		schedule("many", 20);

		Map<String, Integer> delivered = drain(4, 21);

		assertThat(delivered).containsEntry("one", 1).containsEntry("many", 20);
		String debts = redis.get().call("HGETALL", key("gcontrol"));
		assertThat(debts).doesNotContain("d:");
		assertThat(redis.get().call("EXISTS", key("groups"), key("g:many"), key("g:one"))).isEqualTo("0");
	}

	@Test
	void aGroupThatEmptiesLeavesNoDebtBehind() {
		// 20 groups due and a claim of 8: a turn of one message each, the last in the claim cut short of a weight of 2
		redis.store().controls().weighGroup(TOPIC, "g-07", 2);
		for (int g = 0; g < 20; g++) {
			schedule(String.format("g-%02d", g), 1);
		}

		Map<String, Integer> delivered = drain(8, 20);

		assertThat(delivered.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(20);
		assertThat(redis.get().call("HKEYS", key("gcontrol"))).doesNotContain("d:");
	}

	@Test
	void aWeightIsReadBackAndClearedToTheDefault() {
		assertThat(redis.store().controls().weighGroup(TOPIC, "heavy", 5).weight()).isEqualTo(5);
		assertThat(redis.store().controls().readGroup(TOPIC, "heavy").weight()).isEqualTo(5);
		assertThat(redis.store().controls().weighGroup(TOPIC, "heavy", null).weight()).isNull();
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "w:heavy")).isEqualTo("0");
	}

	@Test
	void aWeightBelowOneIsRefusedAndChangesNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> redis.store().controls().weighGroup(TOPIC, "a", 0))
			.withMessageContaining("at least 1");
		assertThat(redis.get().call("EXISTS", key("gcontrol"))).isEqualTo("0");
	}

	/** Claims of 'size', acknowledging each claim's messages on the next, until 'total' were leased. */
	private Map<String, Integer> drain(int size, int total) {
		return Claims.drain(redis.store(), TOPIC, size, total, Claims::groupOf);
	}

	private static double ratio(Map<String, Integer> delivered, String a, String b) {
		return (double) delivered.getOrDefault(a, 0) / delivered.getOrDefault(b, 1);
	}

	private void schedule(@Nullable String group, int count) {
		Scheduling.scheduleAll(redis.store(), TOPIC,
				Scheduling.many((group != null) ? group : "plain", count, group, Duration.ZERO));
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
