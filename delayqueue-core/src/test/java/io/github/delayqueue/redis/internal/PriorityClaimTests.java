package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Scheduling.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Priorities in the scripts, on a real Redis: a higher priority starts first among the due messages, a lower one
 * keeps its weighted share (the starvation guard) unless the topic asks for strict order, a delayed message gets its
 * priority when it falls due, and every way a message leaves and comes back keeps it in its level (retry, hand-back,
 * dead letter and replay, cancel, reschedule, replace, look-up, listing, counts).
 */
class PriorityClaimTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "prio";

	@Test
	void aHighPriorityMessageIsLeasedFirstByTheFirstClaimAfterItIsDueWhateverTheBacklogBeforeIt() {
		scheduleMany("normal", 1000, 4, Duration.ZERO);
		schedule("urgent", 9, null, Duration.ZERO);

		Claim claim = claim(5);

		assertThat(claim.messages()).hasSize(5);
		assertThat(claim.messages().get(0)).satisfies((m) -> {
			assertThat(m.id()).isEqualTo("urgent");
			assertThat(m.message().priority()).isEqualTo(9);
		});
		assertThat(claim.messages().subList(1, 5)).allSatisfy((m) -> assertThat(m.message().priority()).isEqualTo(4));
		assertThat(redis.get().call("ZCARD", key("p9"))).isEqualTo("0");
	}

	@Test
	void aDelayedMessageGetsItsPriorityWhenItFallsDueAndNotBefore() {
		schedule("later", 9, null, Duration.ofMillis(300));
		scheduleMany("normal", 200, 4, Duration.ZERO);

		assertThat(claim(5).messages()).extracting(ClaimedMessage::id).doesNotContain("later");
		// the claim says when the next message (the priority one) falls due
		await().atMost(Duration.ofSeconds(10)).untilAsserted(
				() -> assertThat(claim(5).messages().get(0).id()).isEqualTo("later"));
	}

	@Test
	void aClaimWithNothingDueLeasesNothingAndWaitsForTheEarliestLevel() {
		schedule("later", 9, null, Duration.ofHours(1));
		schedule("latest", 4, null, Duration.ofHours(2));

		Claim claim = claim(10);

		assertThat(claim.messages()).isEmpty();
		assertThat(claim.nextWakeDelayMicros()).isBetween(3_590_000_000L, 3_600_000_000L);
	}

	@Test
	void weightedModeGivesEachLevelItsShareUnderAFloodOfHigherOnes() {
		scheduleMany("low", 300, 0, Duration.ZERO);
		scheduleMany("normal", 300, 4, Duration.ZERO);
		scheduleMany("high", 300, 9, Duration.ZERO);

		// claims of one message: the slot left over after rounding down goes round the levels by weight
		Map<Integer, Integer> byLevel = drain(1, 160);

		// weights 10 : 5 : 1 over 16
		assertThat(byLevel.get(9)).isBetween(100 * 8 / 10, 100 * 12 / 10);
		assertThat(byLevel.get(4)).isBetween(50 * 8 / 10, 50 * 12 / 10);
		assertThat(byLevel.get(0)).isBetween(10 * 5 / 10, 10 * 15 / 10);
	}

	@Test
	void weightedModeSharesLargerClaimsByWeightToo() {
		scheduleMany("low", 300, 0, Duration.ZERO);
		scheduleMany("high", 300, 9, Duration.ZERO);

		Map<Integer, Integer> byLevel = drain(10, 220);

		// weights 10 : 1 over 11
		assertThat(byLevel.get(9)).isBetween(200 * 9 / 10, 200 * 11 / 10);
		assertThat(byLevel.get(0)).isBetween(20 * 5 / 10, 20 * 15 / 10);
	}

	@Test
	void strictModeServesALowerLevelOnlyWhenNoHigherOneHasADueMessage() {
		assertThat(redis.store().controls().priorityMode(TOPIC, true)).isTrue();
		scheduleMany("low", 30, 0, Duration.ZERO);
		scheduleMany("high", 30, 9, Duration.ZERO);

		Map<Integer, Integer> first = drain(7, 28);
		Map<Integer, Integer> then = drain(7, 28);

		assertThat(first).containsExactlyEntriesOf(Map.of(9, 28));
		assertThat(then).containsEntry(9, 2).containsEntry(0, 26);
		assertThat(redis.store().controls().priorityMode(TOPIC, false)).isFalse();
		assertThat(redis.store().controls().priorityMode(TOPIC, null)).isFalse();
	}

	@Test
	void aRetryAHandBackAndAReplayKeepTheMessageInItsLevel() {
		scheduleMany("normal", 50, 4, Duration.ZERO);
		schedule("urgent", 8, null, Duration.ZERO);
		// (claims of ten: a claim of one gives a lower level its weighted turn now and then)
		ClaimedMessage first = claim(10).messages().get(0);
		assertThat(first.id()).isEqualTo("urgent");

		assertThat(redis.store().leases().retry(TOPIC, first.lease(), 0, "boom")).isTrue();
		assertThat(redis.get().call("ZSCORE", key("p8"), "urgent")).isNotNull();
		assertThat(redis.get().call("ZSCORE", key("pending"), "urgent")).isNull();
		ClaimedMessage retried = claim(10).messages().get(0);
		assertThat(retried.id()).isEqualTo("urgent");
		assertThat(retried.attempt()).isEqualTo(2);

		assertThat(redis.store().leases().release(TOPIC, List.of(retried.lease()))).isEqualTo(1);
		assertThat(redis.get().call("ZSCORE", key("p8"), "urgent")).isNotNull();
		ClaimedMessage handedBack = claim(10).messages().get(0);
		assertThat(handedBack.id()).isEqualTo("urgent");

		assertThat(redis.store().leases().bury(TOPIC, handedBack.lease(), "boom")).isTrue();
		assertThat(redis.store().deadLetters().replay(TOPIC, "urgent")).isTrue();
		assertThat(redis.get().call("ZSCORE", key("p8"), "urgent")).isNotNull();
		assertThat(claim(10).messages().get(0).id()).isEqualTo("urgent");
	}

	@Test
	void cancelRescheduleLookupReplaceAndCountsFindAPrioritizedMessage() {
		schedule("a", 7, null, Duration.ofHours(1));
		schedule("b", 7, null, Duration.ofHours(1));
		schedule("plain", 4, null, Duration.ofHours(2));

		assertThat(redis.store().messages().lookup(TOPIC, "a")).satisfies((entry) -> {
			assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
			assertThat(entry.message().priority()).isEqualTo(7);
		});
		assertThat(redis.store().messages().stats(TOPIC).waiting()).isEqualTo(3);
		assertThat(redis.store().messages().waiting(TOPIC, null, null, null, 10)).extracting(StoredEntry::id)
			.containsExactly("a", "b", "plain");

		assertThat(redis.store().messages().reschedule(TOPIC, "a", DueTime.in(0))).isTrue();
		assertThat(redis.store().messages().stats(TOPIC).ready()).isEqualTo(1);
		assertThat(claim(10).messages()).extracting(ClaimedMessage::id).containsExactly("a");

		// another priority: it moves to that level's set; the default: back to pending
		assertThat(redis.store().messages().replace(TOPIC, message("b", 2, null, Duration.ofHours(1))))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZSCORE", key("p7"), "b")).isNull();
		assertThat(redis.get().call("ZSCORE", key("p2"), "b")).isNotNull();
		assertThat(redis.store().messages().replace(TOPIC, message("plain", 1, null, Duration.ofHours(2))))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZSCORE", key("pending"), "plain")).isNull();
		assertThat(redis.store().messages().cancel(TOPIC, "b")).isTrue();
		assertThat(redis.store().messages().cancel(TOPIC, "b")).isFalse();
		assertThat(redis.store().messages().cancel(TOPIC, "plain")).isTrue();
		assertThat(redis.get().call("EXISTS", key("p7"), key("p2"), key("p1"), key("pending"))).isEqualTo("0");
	}

	@Test
	void prioritiesOrderTheMessagesWithoutAGroupWhileTheGroupsTakeTheirTurns() {
		scheduleMany("a", 100, 4, Duration.ZERO, "a");
		scheduleMany("plain", 100, 4, Duration.ZERO);
		schedule("urgent", 9, null, Duration.ZERO);
		schedule("b-1", 4, "b", Duration.ZERO);

		Claim claim = claim(9);

		// three lanes (a, b, the messages without a group) share the claim: b's lone message and the urgent one
		// are both in it, and the urgent one is the first of the messages without a group
		assertThat(claim.messages()).extracting(ClaimedMessage::id).contains("b-1", "urgent");
		List<ClaimedMessage> ungrouped = claim.messages().stream().filter((m) -> m.message().group() == null).toList();
		assertThat(ungrouped.get(0).id()).isEqualTo("urgent");
		assertThat(claim.messages()).filteredOn((m) -> "a".equals(m.message().group())).hasSizeGreaterThan(1);
	}

	@Test
	void aTopicWithoutPrioritiesRunsNoCommandOfThePriorities() {
		CommandCounts counts = new CommandCounts(redis.get());
		List<Lease> acks = List.of();
		for (int round = 0; round < 5; round++) {
			List<NewMessage> messages = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				messages.add(message("r" + round + "-" + i, 4, null, Duration.ZERO));
			}
			redis.store().messages().schedule(TOPIC, messages);
			Claim claim = redis.store().leases().claim(TOPIC, Claimant.create(), acks, 10, LEASE, 10, false, 0);
			List<Lease> leases = claim.messages().stream().map(ClaimedMessage::lease).toList();
			redis.store().leases().retry(TOPIC, leases.get(0), 0, "boom");
			redis.store().leases().release(TOPIC, List.of(leases.get(1)));
			acks = leases.subList(2, leases.size());
		}
		Map<String, Long> total = new TreeMap<>(counts.sinceLast());

		System.out.printf("commands without priorities: %s%n", total);
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).noneMatch((k) -> k.matches(".*\\}:p\\d$"));
		assertThat(redis.get().call("HEXISTS", key("meta"), "prio")).isEqualTo("0");
	}

	/** Claims up to {@code limit} at a time until {@code total} came, acknowledging all; counts them by priority. */
	private Map<Integer, Integer> drain(int limit, int total) {
		return Claims.drain(redis.store(), TOPIC, limit, total, (message) -> message.message().priority());
	}

	private Claim claim(int limit) {
		return redis.store().leases().claim(TOPIC, limit, LEASE, 10);
	}

	private void scheduleMany(String prefix, int count, int priority, Duration delay) {
		scheduleMany(prefix, count, priority, delay, null);
	}

	private void scheduleMany(String prefix, int count, int priority, Duration delay, @Nullable String group) {
		Scheduling.scheduleAll(redis.store(), TOPIC, Scheduling.many(prefix, count, priority, group, delay));
	}

	private void schedule(String id, int priority, @Nullable String group, Duration delay) {
		Scheduling.schedule(redis.store(), TOPIC, message(id, priority, group, delay));
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
