package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Claims.groupsOf;
import static io.github.delayqueue.redis.internal.Claims.leases;
import static io.github.delayqueue.redis.internal.Scheduling.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Groups in the scripts, on a real Redis: turns among the groups with due messages, the per-group cap and pause held
 * for every consumer, and every way a grouped message leaves and comes back (ack, retry, dead letter, hand-back,
 * expired lease, cancel, reschedule, replace, look-up, replay).
 */
class GroupedClaimTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "fair";

	@Test
	void aLoneMessageOfAnotherGroupIsLeasedByTheFirstClaimAfterItIsDueWhateverTheBacklogBeforeIt() {
		scheduleMany("a", 1000, Duration.ZERO);
		schedule("b-1", "b", Duration.ZERO);

		Claim claim = claim(10);

		assertThat(claim.messages()).hasSize(10);
		assertThat(groupsOf(claim)).containsEntry("b", 1).containsEntry("a", 9);
		assertThat(claim.messages()).filteredOn((m) -> m.id().equals("b-1"))
			.singleElement()
			.satisfies((m) -> assertThat(m.message().group()).isEqualTo("b"));
	}

	@Test
	void withManyGroupsDueTheMessagesWithoutAGroupGetTheShareOfOneGroupNotOfOneClaimsTurn() {
		// a claim serves 8 groups in its first round; the messages without a group count as one more group among all
		// 100 due, not among the 8 read (which gave them a ninth of every claim: 14 of 128)
		for (int g = 0; g < 100; g++) {
			scheduleMany(String.format("g%02d", g), 20, Duration.ZERO);
		}
		for (int i = 0; i < 500; i++) {
			schedule("plain-" + i, null, Duration.ZERO);
		}

		Map<String, Integer> delivered = Claims.drain(redis.store(), TOPIC, 128, 1280, Claims::groupOf);

		assertThat(delivered.getOrDefault("", 0)).isBetween(10, 20);
	}

	@Test
	void aClaimReadsNoMoreGroupsThanItsSizeWhateverTheCapsHoldBack() {
		// 300 groups in turn, each at its cap of 1 already: a claim of 8 reads 8 of them (holds them), not all 300
		for (int g = 0; g < 300; g++) {
			schedule("first-" + g, String.format("g%03d", g), Duration.ZERO);
		}
		assertThat(claim(300).messages()).hasSize(300);
		redis.store().controls().capGroup(TOPIC, null, 1L);
		for (int g = 0; g < 300; g++) {
			schedule("second-" + g, String.format("g%03d", g), Duration.ZERO);
		}

		assertThat(claim(8).messages()).isEmpty();

		assertThat(redis.get().call("SCARD", key("gheld"))).isEqualTo("8");
		assertThat(redis.get().call("ZCARD", key("groups"))).isEqualTo("292");
	}

	@Test
	void messagesWithoutAGroupShareTheClaimAsOneMoreGroup() {
		for (int i = 0; i < 100; i++) {
			schedule("plain-" + i, null, Duration.ZERO);
		}
		schedule("b-1", "b", Duration.ZERO);

		Claim claim = claim(10);

		assertThat(claim.messages()).extracting(ClaimedMessage::id).contains("b-1");
		assertThat(claim.messages()).hasSize(10);
	}

	@Test
	void threeGroupsWithEqualBacklogsGetEqualSharesWhileAllHaveMessages() {
		for (String group : List.of("x", "y", "z")) {
			scheduleMany(group, 300, Duration.ZERO);
		}
		Map<String, Integer> delivered = new HashMap<>();
		List<Lease> acks = new ArrayList<>();
		int total = 0;
		while (total < 450) {
			Claim claim = redis.store().leases().claim(TOPIC, acks, 7, LEASE, 10, false);
			acks = leases(claim);
			groupsOf(claim).forEach((group, n) -> delivered.merge(group, n, Integer::sum));
			total += claim.messages().size();
		}
		int share = total / 3;
		assertThat(delivered).hasSize(3);
		delivered.values().forEach((n) -> assertThat(n).isBetween(share * 9 / 10, share * 11 / 10));
	}

	@Test
	void aGroupCapHoldsForEveryConsumerAndAFinishedMessageLetsTheNextOneGo() {
		RedisMessageStore other = redis.fixture().store(redis.fixture().connectionFactory());
		redis.store().controls().capGroup(TOPIC, "a", 1L);
		scheduleMany("a", 5, Duration.ZERO);
		schedule("b-1", "b", Duration.ZERO);

		Claim first = claim(10);
		Claim second = other.leases().claim(TOPIC, 10, LEASE, 10);

		assertThat(groupsOf(first)).containsEntry("a", 1).containsEntry("b", 1);
		assertThat(second.messages()).isEmpty();
		assertThat(redis.store().controls().readGroup(TOPIC, "a")).satisfies((state) -> {
			assertThat(state.leased()).isEqualTo(1);
			assertThat(state.waiting()).isEqualTo(4);
			assertThat(state.effectiveCap()).isEqualTo(1);
		});
		// held out of turn while at its cap: a claim reads nothing of it
		assertThat(redis.get().call("SISMEMBER", key("gheld"), "a")).isEqualTo("1");

		Lease leaseOfA = first.messages().stream().filter((m) -> "a".equals(m.message().group())).findFirst()
			.orElseThrow().lease();
		Claim afterAck = other.leases().claim(TOPIC, List.of(leaseOfA), 10, LEASE, 10, false);

		assertThat(groupsOf(afterAck)).containsExactlyEntriesOf(Map.of("a", 1));
		assertThat(redis.store().controls().readGroup(TOPIC, "a").leased()).isEqualTo(1);
	}

	@Test
	void theTopicsDefaultCapHoldsForEveryGroupAndAGroupsOwnCapOverridesIt() {
		redis.store().controls().capGroup(TOPIC, null, 2L);
		redis.store().controls().capGroup(TOPIC, "big", 4L);
		scheduleMany("small", 10, Duration.ZERO);
		scheduleMany("big", 10, Duration.ZERO);

		Map<String, Integer> leased = new HashMap<>();
		for (int i = 0; i < 5; i++) {
			groupsOf(claim(10)).forEach((group, n) -> leased.merge(group, n, Integer::sum));
		}

		assertThat(leased).containsEntry("small", 2).containsEntry("big", 4);
	}

	@Test
	void aPausedGroupDeliversNothingWhileTheOthersFlowAndResumeWakesTheConsumers() {
		List<String> wakes = redis.fixture().recordWakes(TOPIC);
		scheduleMany("a", 5, Duration.ZERO);
		scheduleMany("b", 5, Duration.ZERO);
		assertThat(redis.store().controls().pauseGroup(TOPIC, "a").paused()).isTrue();
		schedule("a-late", "a", Duration.ZERO);

		Map<String, Integer> leased = new HashMap<>();
		for (int i = 0; i < 3; i++) {
			groupsOf(claim(10)).forEach((group, n) -> leased.merge(group, n, Integer::sum));
		}
		assertThat(leased).containsExactlyEntriesOf(Map.of("b", 5));

		wakes.clear();
		assertThat(redis.store().controls().resumeGroup(TOPIC, "a").paused()).isFalse();
		org.awaitility.Awaitility.await().until(() -> wakes.contains("0"));
		assertThat(groupsOf(claim(10))).containsExactlyEntriesOf(Map.of("a", 6));
	}

	@Test
	void aRetryGoesBackToItsGroupAndFreesItsSlot() {
		redis.store().controls().capGroup(TOPIC, "a", 1L);
		schedule("a-1", "a", Duration.ZERO);
		schedule("a-2", "a", Duration.ZERO);
		ClaimedMessage first = claim(10).messages().get(0);

		assertThat(redis.store().leases().retry(TOPIC, first.lease(), 0, "boom")).isTrue();

		assertThat(redis.get().call("ZSCORE", key("g:a"), first.id())).isNotNull();
		assertThat(redis.get().call("ZSCORE", key("pending"), first.id())).isNull();
		Claim next = claim(10);
		assertThat(next.messages()).hasSize(1);
		assertThat(redis.store().controls().readGroup(TOPIC, "a").leased()).isEqualTo(1);
	}

	@Test
	void aDeadLetterLeavesItsGroupsCountAndAReplayPutsItBackInItsGroup() {
		schedule("a-1", "a", Duration.ZERO);
		ClaimedMessage first = claim(10).messages().get(0);

		assertThat(redis.store().leases().bury(TOPIC, first.lease(), "boom")).isTrue();
		assertThat(redis.store().controls().readGroup(TOPIC, "a").leased()).isZero();
		assertThat(redis.store().deadLetters().replay(TOPIC, "a-1")).isTrue();

		assertThat(redis.get().call("ZSCORE", key("g:a"), "a-1")).isNotNull();
		assertThat(groupsOf(claim(10))).containsExactlyEntriesOf(Map.of("a", 1));
	}

	@Test
	void aHandedBackMessageGoesBackToItsGroupUncounted() {
		redis.store().controls().capGroup(TOPIC, "a", 1L);
		schedule("a-1", "a", Duration.ZERO);
		ClaimedMessage first = claim(10).messages().get(0);

		assertThat(redis.store().leases().release(TOPIC, List.of(first.lease()))).isEqualTo(1);

		assertThat(redis.store().controls().readGroup(TOPIC, "a")).satisfies((state) -> {
			assertThat(state.leased()).isZero();
			assertThat(state.waiting()).isEqualTo(1);
		});
		assertThat(claim(10).messages()).extracting(ClaimedMessage::id).containsExactly("a-1");
	}

	@Test
	void aGroupedMessageWhoseLeaseRunsOutBecomesASuspectInPendingAndLeavesItsGroupsCount() {
		redis.store().controls().capGroup(TOPIC, "a", 1L);
		schedule("a-1", "a", Duration.ZERO);
		schedule("a-2", "a", Duration.ZERO);
		assertThat(redis.store().leases().claim(TOPIC, List.of(), 1, 1, 10, false).messages()).hasSize(1);

		org.awaitility.Awaitility.await().until(() -> {
			Claim claim = redis.store().leases().claim(TOPIC, List.of(), 0, LEASE, 10, false);
			return "1".equals(redis.get().call("SISMEMBER", key("suspect"), "a-1"));
		});

		assertThat(redis.get().call("ZSCORE", key("pending"), "a-1")).as("the suspect waits in pending").isNotNull();
		assertThat(redis.store().controls().readGroup(TOPIC, "a").leased()).isZero();
		// the suspect runs alone, as ever; the group's next message flows again
		Claim suspect = redis.store().leases().claim(TOPIC, List.of(), 10, LEASE, 10, true);
		assertThat(suspect.messages()).extracting(ClaimedMessage::id).containsExactly("a-1");
		assertThat(suspect.messages().get(0).suspect()).isTrue();
		assertThat(claim(10).messages()).extracting(ClaimedMessage::id).containsExactly("a-2");
	}

	@Test
	void cancelRescheduleLookupAndReplaceFindAGroupedMessage() {
		schedule("a-1", "a", Duration.ofHours(1));
		schedule("a-2", "a", Duration.ofHours(1));

		assertThat(redis.store().messages().lookup(TOPIC, "a-1")).satisfies((entry) -> {
			assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
			assertThat(entry.message().group()).isEqualTo("a");
		});
		assertThat(redis.store().messages().reschedule(TOPIC, "a-1", DueTime.in(0))).isTrue();
		assertThat(claim(10).messages()).extracting(ClaimedMessage::id).containsExactly("a-1");

		assertThat(redis.store().messages().replace(TOPIC, message("a-2", "b", Duration.ZERO)))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZSCORE", key("g:a"), "a-2")).isNull();
		assertThat(redis.store().messages().cancel(TOPIC, "a-2")).isTrue();
		assertThat(redis.store().messages().cancel(TOPIC, "a-2")).isFalse();
		assertThat(claim(10).messages()).isEmpty();
		assertThat(redis.get().call("EXISTS", key("g:a"), key("g:b"))).isEqualTo("0");
		assertThat(redis.get().call("ZCARD", key("groups"))).isEqualTo("0");
	}

	@Test
	void listingMergesGroupedAndUngroupedMessagesByDueTimeAPageAtATime() {
		List<NewMessage> messages = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			String group = (i % 3 == 0) ? null : "g" + (i % 3);
			messages.add(new NewMessage(String.format("m%02d", i), DueTime.at(4_000_000_000_000L + i), Instant.now(),
					Map.of(), "p".getBytes(StandardCharsets.UTF_8), null, group));
		}
		redis.store().messages().schedule(TOPIC, messages);

		List<String> listed = new ArrayList<>();
		Position after = null;
		for (int page = 0; page < 10; page++) {
			List<StoredEntry> entries = redis.store().messages().waiting(TOPIC, null, null, after, 7);
			entries.forEach((entry) -> listed.add(entry.id()));
			if (entries.size() < 7) {
				break;
			}
			after = entries.get(entries.size() - 1).position();
		}

		List<String> expected = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			expected.add(String.format("m%02d", i));
		}
		assertThat(listed).containsExactlyElementsOf(expected);
	}

	@Test
	void statsCountGroupedMessages() {
		scheduleMany("a", 3, Duration.ZERO);
		schedule("b-1", "b", Duration.ofHours(1));
		schedule("plain", null, Duration.ZERO);

		TopicCounts counts = redis.store().messages().stats(TOPIC);

		assertThat(counts.ready()).isEqualTo(4);
		assertThat(counts.waiting()).isEqualTo(1);
	}

	@Test
	void aCapOfZeroIsRefusedAndChangesNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> redis.store().controls().capGroup(TOPIC, "a", 0L))
			.withMessageContaining("at least 1");
		assertThat(redis.get().call("EXISTS", key("gcontrol"), key("control"))).isEqualTo("0");
	}

	@Test
	void aTopicWithoutGroupsRunsNoCommandOfTheGroups() {
		CommandCounts counts = new CommandCounts(redis.get());
		List<Lease> acks = List.of();
		Map<String, Long> total = new java.util.TreeMap<>();
		for (int round = 0; round < 5; round++) {
			List<NewMessage> messages = new ArrayList<>();
			for (int i = 0; i < 10; i++) {
				messages.add(message("r" + round + "-" + i, null, Duration.ZERO));
			}
			redis.store().messages().schedule(TOPIC, messages);
			Claim claim = redis.store().leases().claim(TOPIC, Claimant.create(), acks, 10, LEASE, 10, false, 0);
			List<Lease> leases = leases(claim);
			// one retried, one handed back, one acknowledged on its own, the rest ride on the next claim
			redis.store().leases().retry(TOPIC, leases.get(0), 0, "boom");
			redis.store().leases().release(TOPIC, List.of(leases.get(1)));
			redis.store().leases().ack(TOPIC, List.of(leases.get(2)));
			acks = leases.subList(3, leases.size());
		}
		redis.store().messages().cancel(TOPIC, "r4-0");
		redis.store().messages().reschedule(TOPIC, "r4-1", DueTime.in(0));
		counts.sinceLast().forEach((name, calls) -> total.merge(name, calls, Long::sum));

		System.out.printf("commands without groups: %s%n", total);
		// what only the groups' code runs: their counters, their held set, their turns
		assertThat(total).doesNotContainKeys("sismember", "sadd", "smembers");
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).noneMatch((k) -> k.contains("}:g"));
	}

	private Claim claim(int limit) {
		return redis.store().leases().claim(TOPIC, limit, LEASE, 10);
	}

	private void scheduleMany(String group, int count, Duration delay) {
		Scheduling.scheduleAll(redis.store(), TOPIC, Scheduling.many(group, count, group, delay));
	}

	private void schedule(String id, @Nullable String group, Duration delay) {
		Scheduling.schedule(redis.store(), TOPIC, message(id, group, delay));
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
