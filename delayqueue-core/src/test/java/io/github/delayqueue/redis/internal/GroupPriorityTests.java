package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Scheduling.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Priorities within a group's share, on a real Redis: a group's due messages are shared among their levels as the
 * messages without a group are (weighted, or strict), a group's turn comes at the due time of its earliest message in
 * any of its levels' sets, and every way a grouped message leaves and comes back keeps both its group and its level
 * (retry, hand-back, a lost claim undone, dead letter and replay, cancel, reschedule, replace, look-up, counts).
 */
class GroupPriorityTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "gprio";

	@Test
	void aDuePriorityNineMessageOfAGroupIsLeasedBeforeEarlierDueOnesOfThatGroup() {
		scheduleMany("a", 50, 4, "a", Duration.ZERO);
		schedule("urgent", 9, "a", Duration.ZERO);

		Claim claim = claim(5);

		assertThat(claim.messages()).hasSize(5);
		assertThat(claim.messages().get(0)).satisfies((m) -> {
			assertThat(m.id()).isEqualTo("urgent");
			assertThat(m.message().priority()).isEqualTo(9);
			assertThat(m.message().group()).isEqualTo("a");
		});
		assertThat(claim.messages().subList(1, 5)).allSatisfy((m) -> {
			assertThat(m.message().priority()).isEqualTo(4);
			assertThat(m.message().group()).isEqualTo("a");
		});
		assertThat(redis.get().call("EXISTS", key("g9:a"))).isEqualTo("0");
		// the level's set emptied: the group lists it no more
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "l:a")).isEqualTo("0");
		assertThat(redis.store().controls().readGroup(TOPIC, "a").leased()).isEqualTo(5);
	}

	@Test
	void aGroupHoldingOnlyALevelNineMessageGetsItsTurnAtThatMessagesDueTimeAndNotBefore() {
		schedule("later", 9, "b", Duration.ofMillis(500));

		String due = redis.get().call("ZSCORE", key("g9:b"), "later");
		assertThat(redis.get().call("ZSCORE", key("groups"), "b")).isEqualTo(due);
		Claim early = claim(10);
		assertThat(early.messages()).isEmpty();
		assertThat(early.nextWakeDelayMicros()).isBetween(1L, 500_000L);

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(claim(10).messages())
			.singleElement()
			.satisfies((m) -> {
				assertThat(m.id()).isEqualTo("later");
				assertThat(m.message().group()).isEqualTo("b");
				assertThat(m.message().priority()).isEqualTo(9);
			}));
		assertThat(redis.get().call("ZSCORE", key("groups"), "b")).as("nothing left: out of turn").isNull();
	}

	@Test
	void aGroupServedTakesItsNextTurnAtTheEarliestMessageOfAnyOfItsLevels() {
		schedule("d4", 4, "d", Duration.ZERO);
		schedule("d9", 9, "d", Duration.ofHours(1));
		schedule("d2", 2, "d", Duration.ofHours(2));

		assertThat(claim(10).messages()).extracting(ClaimedMessage::id).containsExactly("d4");

		assertThat(redis.get().call("ZSCORE", key("groups"), "d"))
			.isEqualTo(redis.get().call("ZSCORE", key("g9:d"), "d9"));
		assertThat(redis.get().call("HGET", key("gcontrol"), "l:d")).as("both levels still hold a message")
			.containsOnlyOnce("9")
			.containsOnlyOnce("2");
	}

	@Test
	void weightedModeSharesAGroupsClaimsAmongItsLevelsByWeight() {
		scheduleMany("low", 300, 0, "w", Duration.ZERO);
		scheduleMany("high", 300, 9, "w", Duration.ZERO);

		Map<Integer, Integer> byLevel = drain(11, 220);

		// weights 10 : 1 over 11
		assertThat(byLevel.get(9)).isBetween(200 * 9 / 10, 200 * 11 / 10);
		assertThat(byLevel.get(0)).isBetween(20 * 5 / 10, 20 * 15 / 10);
	}

	@Test
	void weightedModeGivesALowerLevelOfAGroupItsShareInClaimsOfOne() {
		scheduleMany("low", 100, 0, "w", Duration.ZERO);
		scheduleMany("normal", 100, 4, "w", Duration.ZERO);
		scheduleMany("high", 100, 9, "w", Duration.ZERO);

		Map<Integer, Integer> byLevel = drain(1, 160);

		// weights 10 : 5 : 1 over 16
		assertThat(byLevel.get(9)).isBetween(100 * 8 / 10, 100 * 12 / 10);
		assertThat(byLevel.get(4)).isBetween(50 * 8 / 10, 50 * 12 / 10);
		assertThat(byLevel.get(0)).isBetween(10 * 5 / 10, 10 * 15 / 10);
	}

	@Test
	void strictModeServesALowerLevelOfAGroupOnlyWhenNoHigherOneHasADueMessage() {
		assertThat(redis.store().controls().priorityMode(TOPIC, true)).isTrue();
		scheduleMany("low", 30, 0, "s", Duration.ZERO);
		scheduleMany("high", 30, 9, "s", Duration.ZERO);

		Map<Integer, Integer> first = drain(7, 28);
		Map<Integer, Integer> then = drain(7, 28);

		assertThat(first).containsExactlyEntriesOf(Map.of(9, 28));
		assertThat(then).containsEntry(9, 2).containsEntry(0, 26);
	}

	@Test
	void groupsStillTakeTurnsWhenTheirMessagesHaveLevels() {
		scheduleMany("a", 100, 9, "a", Duration.ZERO);
		schedule("b-1", 0, "b", Duration.ZERO);

		Claim claim = claim(10);

		// b's lone message of the lowest level is in the first claim: the level orders a group's share only
		assertThat(claim.messages()).extracting(ClaimedMessage::id).contains("b-1");
		assertThat(claim.messages()).filteredOn((m) -> "a".equals(m.message().group())).hasSize(9);
	}

	@Test
	void aRetryAHandBackALostClaimAndAReplayKeepTheGroupAndTheLevel() {
		scheduleMany("a", 20, 4, "a", Duration.ZERO);
		schedule("urgent", 8, "a", Duration.ZERO);
		ClaimedMessage first = claim(10).messages().get(0);
		assertThat(first.id()).isEqualTo("urgent");
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "l:a")).isEqualTo("0");

		assertThat(redis.store().leases().retry(TOPIC, first.lease(), 0, "boom")).isTrue();
		assertThat(redis.get().call("ZSCORE", key("g8:a"), "urgent")).isNotNull();
		assertThat(redis.get().call("HGET", key("gcontrol"), "l:a")).isEqualTo("8");
		ClaimedMessage retried = claim(10).messages().get(0);
		assertThat(retried.id()).isEqualTo("urgent");
		assertThat(retried.attempt()).isEqualTo(2);
		assertThat(retried.message().group()).isEqualTo("a");

		assertThat(redis.store().leases().release(TOPIC, List.of(retried.lease()))).isEqualTo(1);
		assertThat(redis.get().call("ZSCORE", key("g8:a"), "urgent")).isNotNull();
		assertThat(redis.get().call("HGET", key("gcontrol"), "l:a")).isEqualTo("8");
		Claimant claimant = Claimant.create();
		Claim lost = ClaimRecords.lost(redis.get(), TOPIC, claimant, 1,
				(standIn) -> redis.store().leases().claim(TOPIC, standIn, List.of(), 10, LEASE, 10, false, 0));
		assertThat(lost.messages().get(0).id()).isEqualTo("urgent");
		// the claimant sent it, and its reply never came: its next claim undoes it, then leases the message anew
		claimant.next();
		ClaimedMessage handedBack = redis.store().leases()
			.claim(TOPIC, claimant, List.of(), 10, LEASE, 10, false, 0)
			.messages()
			.get(0);
		assertThat(handedBack.id()).isEqualTo("urgent");
		assertThat(handedBack.message().priority()).isEqualTo(8);

		assertThat(redis.store().leases().bury(TOPIC, handedBack.lease(), "boom")).isTrue();
		assertThat(redis.store().deadLetters().replay(TOPIC, "urgent")).isTrue();
		assertThat(redis.get().call("ZSCORE", key("g8:a"), "urgent")).isNotNull();
		assertThat(redis.get().call("ZSCORE", key("g:a"), "urgent")).isNull();
		assertThat(claim(10).messages().get(0)).satisfies((m) -> {
			assertThat(m.id()).isEqualTo("urgent");
			assertThat(m.message().group()).isEqualTo("a");
			assertThat(m.message().priority()).isEqualTo(8);
		});
	}

	@Test
	void aGroupedMessageOfALevelWithItsAttemptsUsedUpIsBuriedByTheClaimAndLeavesItsSet() {
		schedule("spent", 9, "a", Duration.ZERO);
		schedule("fresh", 9, "a", Duration.ZERO);
		redis.get().call("HSET", key("tries"), "spent", "10");

		Claim claim = claim(10);

		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("fresh");
		assertThat(claim.buried()).isEqualTo(1);
		assertThat(redis.get().call("ZSCORE", key("buried"), "spent")).isNotNull();
		assertThat(redis.get().call("EXISTS", key("g9:a"))).isEqualTo("0");
		assertThat(redis.get().call("ZSCORE", key("groups"), "a")).as("nothing left: out of turn").isNull();
	}

	@Test
	void aPausedOrCappedGroupHoldingOnlyLevelMessagesTakesItsTurnAgainWhenReleased() {
		schedule("p-1", 9, "p", Duration.ZERO);
		redis.store().controls().pauseGroup(TOPIC, "p");
		assertThat(claim(10).messages()).isEmpty();

		redis.store().controls().resumeGroup(TOPIC, "p");

		assertThat(claim(10).messages()).extracting(ClaimedMessage::id).containsExactly("p-1");

		redis.store().controls().capGroup(TOPIC, "c", 1L);
		schedule("c-1", 7, "c", Duration.ZERO);
		schedule("c-2", 7, "c", Duration.ZERO);
		Claim capped = claim(10);
		assertThat(capped.messages()).extracting(ClaimedMessage::id).containsExactly("c-1");
		assertThat(redis.get().call("SISMEMBER", key("gheld"), "c")).isEqualTo("1");

		Claim next = redis.store()
			.leases()
			.claim(TOPIC, List.of(capped.messages().get(0).lease()), 10, LEASE, 10, false);

		assertThat(next.messages()).extracting(ClaimedMessage::id).containsExactly("c-2");
	}

	@Test
	void cancelRescheduleLookupReplaceListingAndCountsFindAGroupedMessageOfALevel() {
		schedule("a1", 7, "a", Duration.ofHours(1));
		schedule("a2", 7, "a", Duration.ofHours(1));
		schedule("a3", 4, "a", Duration.ofHours(2));

		assertThat(redis.store().messages().lookup(TOPIC, "a1")).satisfies((entry) -> {
			assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
			assertThat(entry.message().priority()).isEqualTo(7);
			assertThat(entry.message().group()).isEqualTo("a");
		});
		assertThat(redis.store().messages().stats(TOPIC).waiting()).isEqualTo(3);
		assertThat(redis.store().controls().readGroup(TOPIC, "a").waiting()).isEqualTo(3);
		assertThat(redis.store().controls().topGroups(TOPIC, 10, 1000).groups()).singleElement()
			.satisfies((count) -> assertThat(count.waiting()).isEqualTo(3));
		assertThat(redis.store().controls().countGroups(TOPIC, List.of("a")).groups()).singleElement()
			.satisfies((count) -> assertThat(count.waiting()).isEqualTo(3));
		assertThat(redis.store().messages().waiting(TOPIC, null, null, null, 10)).extracting(StoredEntry::id)
			.containsExactly("a1", "a2", "a3");

		assertThat(redis.store().messages().reschedule(TOPIC, "a1", DueTime.in(0))).isTrue();
		assertThat(redis.store().messages().stats(TOPIC).ready()).isEqualTo(1);
		assertThat(claim(10).messages()).singleElement().satisfies((m) -> {
			assertThat(m.id()).isEqualTo("a1");
			assertThat(m.message().priority()).isEqualTo(7);
		});

		// another priority in the same group: it moves to that level's set; the default: to the group's own set
		assertThat(redis.store().messages().replace(TOPIC, message("a2", 2, "a", Duration.ofHours(1))))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZSCORE", key("g7:a"), "a2")).isNull();
		assertThat(redis.get().call("ZSCORE", key("g2:a"), "a2")).isNotNull();
		assertThat(redis.store().messages().lookup(TOPIC, "a2").message().priority()).isEqualTo(2);
		assertThat(redis.store().messages().replace(TOPIC, message("a3", 4, "a", Duration.ofHours(3))))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZSCORE", key("g:a"), "a3")).isNotNull();
		// another group and level
		assertThat(redis.store().messages().replace(TOPIC, message("a3", 9, "b", Duration.ofHours(3))))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZSCORE", key("g:a"), "a3")).isNull();
		assertThat(redis.get().call("ZSCORE", key("g9:b"), "a3")).isNotNull();
		assertThat(redis.store().controls().readGroup(TOPIC, "b").waiting()).isEqualTo(1);

		assertThat(redis.store().messages().cancel(TOPIC, "a2")).isTrue();
		assertThat(redis.store().messages().cancel(TOPIC, "a2")).isFalse();
		assertThat(redis.store().messages().cancel(TOPIC, "a3")).isTrue();
		assertThat(redis.get().call("EXISTS", key("g7:a"), key("g2:a"), key("g:a"), key("g9:b"))).isEqualTo("0");
		// the groups emptied leave their turns and their lists of levels
		assertThat(redis.get().call("ZCARD", key("groups"))).isEqualTo("0");
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "l:a")).isEqualTo("0");
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "l:b")).isEqualTo("0");
	}

	/** Claims up to {@code limit} at a time until {@code total} came, acknowledging all; counts them by priority. */
	private Map<Integer, Integer> drain(int limit, int total) {
		return Claims.drain(redis.store(), TOPIC, limit, total, (message) -> message.message().priority());
	}

	private Claim claim(int limit) {
		return redis.store().leases().claim(TOPIC, limit, LEASE, 10);
	}

	private void scheduleMany(String prefix, int count, int priority, String group, Duration delay) {
		Scheduling.scheduleAll(redis.store(), TOPIC, Scheduling.many(prefix, count, priority, group, delay));
	}

	private void schedule(String id, int priority, String group, Duration delay) {
		Scheduling.schedule(redis.store(), TOPIC, message(id, priority, group, delay));
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
