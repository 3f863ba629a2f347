package io.github.delayqueue.redis.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The storage layer's promises, each checked against a real Redis, one deterministic sequence per defect it must
 * not have: fenced leases, attempts counted at handler start, never early, scripts that never fail half-way,
 * original due times on redelivery, wake-ups for lease deadlines, dead letters trimmed by age.
 */
class RedisMessageStoreTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "t";

	/** The lease of the claims that find leases ended, where a suspect charged for a run waits that long again. */
	private static final long SHORT_LEASE = 100;

	@Test
	void anExpiredLeaseWhoseDueTimeIsNoScoreComesBackDueNowInsteadOfStoppingClaims() {
		schedule("m1", "p");
		ClaimedMessage claimed = claimOne(100);
		// a due time that matches the record's pattern but that Redis cannot take as a score
		redis.get().call("HSET", key("lease"), "m1", claimed.lease().token() + ":1e400:1");
		// counted as a suspect's run, it waits a lease (the finding claim's, short here) before it runs again
		ClaimedMessage again = awaitClaim(SHORT_LEASE);
		assertThat(again.id()).isEqualTo("m1");
		assertThat(again.attempt()).isEqualTo(2);
	}

	@ParameterizedTest
	@ValueSource(strings = { "", " ", "a{b", "a}b", "a b", "a\tb", "a\u0001b" })
	void aKeyPrefixThatCouldBreakTheKeyLayoutIsRejected(String prefix) {
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> new RedisMessageStore(redis.fixture().connectionFactory(), prefix, DeadLetterPolicy.DEFAULT))
			.withMessageContaining("Key prefix");
	}

	@ParameterizedTest
	@CsvSource({ "0, false", "3000, false", "0, true", "3000, true" })
	void aBatchStoresEachNewIdOnceAndLeavesExistingOnesAlone(int alreadyWaiting, boolean withAGroupedMessage) {
		List<NewMessage> earlier = new ArrayList<>();
		for (int i = 0; i < alreadyWaiting; i++) {
			earlier.add(message("w-" + i, DueTime.in(60_000_000), "w"));
		}
		for (int from = 0; from < earlier.size(); from += RedisMessageStore.CHUNK_SIZE) {
			redis.store().messages().schedule(TOPIC, earlier.subList(from, Math.min(earlier.size(), from + RedisMessageStore.CHUNK_SIZE)));
		}
		schedule("old-1", "first");
		schedule("old-2", "first");
		// 40 messages: two ids that exist, one id three times, the rest new; plain messages alone are stored by
		// schedule-plain.lua, a batch with a grouped message by schedule.lua (which must see what the other stored)
		List<NewMessage> batch = new ArrayList<>();
		List<Boolean> expected = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			String id = switch (i) {
				case 5 -> "old-1";
				case 17 -> "old-2";
				case 8, 9, 30 -> "again";
				default -> "new-" + i;
			};
			batch.add(message(id, DueTime.in(0), "second-" + i));
			expected.add(!id.startsWith("old") && !(id.equals("again") && i != 8));
		}
		if (withAGroupedMessage) {
			batch.add(Scheduling.message("grouped", "g", Duration.ZERO));
			expected.add(true);
		}
		assertThat(redis.store().messages().schedule(TOPIC, batch)).containsExactlyElementsOf(expected);
		Claim claim = redis.store().leases().claim(TOPIC, 100, LEASE, 10);
		Map<String, String> payloads = new HashMap<>();
		claim.messages().forEach((claimed) -> payloads.put(claimed.id(), new String(claimed.message().payload(),
				StandardCharsets.UTF_8)));
		assertThat(payloads).hasSize(2 + 38 - 2 + (withAGroupedMessage ? 1 : 0))
			.containsEntry("old-1", "first")
			.containsEntry("old-2", "first")
			.containsEntry("again", "second-8")
			.containsEntry("new-0", "second-0");
	}

	@Test
	void aStaleLeaseNeverTouchesALaterClaimOfAReusedId() {
		schedule("m1", "first");
		ClaimedMessage a = claimOne(200);
		assertThat(a.attempt()).isEqualTo(1);
		// A stalls past its lease: B takes the message over and acknowledges it
		ClaimedMessage b = awaitClaim(LEASE);
		assertThat(b.lease().token()).isNotEqualTo(a.lease().token());
		assertThat(redis.store().leases().ack(TOPIC, List.of(b.lease()))).isEqualTo(1);
		// the id is used again, and C claims the new message
		schedule("m1", "second");
		ClaimedMessage c = claimOne(LEASE);
		assertThat(c.attempt()).as("a new message starts at attempt 1").isEqualTo(1);

		// A wakes up: none of its calls may touch C's claim
		assertThat(redis.store().leases().ack(TOPIC, List.of(a.lease()))).isZero();
		assertThat(redis.store().leases().extend(TOPIC, List.of(a.lease()), 1)).isEmpty();
		assertThat(redis.store().leases().retry(TOPIC, a.lease(), 0, "boom")).isFalse();
		assertThat(redis.store().leases().bury(TOPIC, a.lease(), "boom")).isFalse();
		assertThat(redis.store().leases().release(TOPIC, List.of(a.lease()))).isZero();
		assertThat(redis.store().leases().claim(TOPIC, List.of(a.lease()), 0, LEASE, 10, true).messages()).isEmpty();
		assertThat(redis.store().messages().stats(TOPIC).leased()).isEqualTo(1);

		// C's lease is intact and C's failure is recorded
		assertThat(redis.store().leases().retry(TOPIC, c.lease(), 0, "java.lang.IllegalStateException: C failed")).isTrue();
		ClaimedMessage retried = awaitClaim(LEASE);
		assertThat(retried.attempt()).isEqualTo(2);
		assertThat(retried.message().payload()).isEqualTo(bytes("second"));
	}

	@Test
	void aClaimThatLeasesASuspectLeasesNothingBesideIt() {
		for (int i = 0; i < 3; i++) {
			schedule("m" + i, "p" + i);
		}
		// a consumer leases two and dies: both come back as suspects
		assertThat(redis.store().leases().claim(TOPIC, 2, 100, 3).messages()).hasSize(2);
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 3);
			return "2".equals(redis.get().call("SCARD", key("suspect")));
		});
		schedule("fresh", "p");

		Claim suspectClaim = redis.store().leases().claim(TOPIC, List.of(), 10, LEASE, 3, true);

		// alone: if it kills its consumer, nothing else was leased with it to become a suspect in turn
		assertThat(suspectClaim.messages()).singleElement().satisfies((message) -> {
			assertThat(message.suspect()).isTrue();
			assertThat(message.id()).isIn("m0", "m1");
		});
		assertThat(suspectClaim.nextWakeDelayMicros()).as("the batched messages are still due").isZero();
		// a claim that may lease no suspect leases the batched ones, the other suspect passed over
		Claim batched = redis.store().leases().claim(TOPIC, List.of(), 10, LEASE, 3, false);
		assertThat(batched.messages()).extracting(ClaimedMessage::id).containsExactlyInAnyOrder("m2", "fresh");
		assertThat(batched.messages()).noneMatch(ClaimedMessage::suspect);
	}

	@Test
	void ofTheDueSuspectsTheOneChargedForTheFewestRunsIsLeasedFirst() {
		schedule("killer", "k");
		schedule("neighbour", "n");
		// a consumer leases both and dies: both come back as suspects, neither charged
		assertThat(redis.store().leases().claim(TOPIC, 2, 100, 5).messages()).hasSize(2);
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 5);
			return "2".equals(redis.get().call("SCARD", key("suspect")));
		});
		// the earliest due runs first, charged as it is leased, and kills its consumer again
		ClaimedMessage first = redis.store().leases().claim(TOPIC, List.of(), 5, 100, 5, true).messages().get(0);
		assertThat(first.id()).isEqualTo("killer");
		assertThat(first.attempt()).isEqualTo(1);
		awaitSuspects(2);

		// now the neighbour, never charged, runs before the killer runs (and kills) again
		ClaimedMessage next = redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 5, true).messages().get(0);
		assertThat(next.id()).isEqualTo("neighbour");
		assertThat(next.suspect()).isTrue();
		assertThat(next.attempt()).isEqualTo(1);
	}

	@Test
	void suspectsChargedBeforeRunOneAtATimeAcrossConsumers() {
		schedule("a", "a");
		schedule("b", "b");
		// leased and lost three times over: first as a batch, then each as a suspect, charged
		assertThat(redis.store().leases().claim(TOPIC, 2, 100, 5).messages()).hasSize(2);
		awaitSuspects(2);
		assertThat(redis.store().leases().claim(TOPIC, List.of(), 5, 100, 5, true).messages()).singleElement()
			.satisfies((message) -> assertThat(message.id()).isEqualTo("a"));
		awaitSuspects(2);
		assertThat(redis.store().leases().claim(TOPIC, List.of(), 5, 100, 5, true).messages()).singleElement()
			.satisfies((message) -> assertThat(message.id()).as("never charged: first").isEqualTo("b"));
		awaitSuspects(2);
		schedule("fresh", "f");

		ClaimedMessage running = redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 5, true).messages().get(0);
		assertThat(running.suspect()).isTrue();
		assertThat(running.attempt()).isEqualTo(2);
		// another consumer, which may lease a suspect, gets none while that one runs: it goes on with the rest
		Claim other = redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 5, true);
		assertThat(other.messages()).extracting(ClaimedMessage::id).containsExactly("fresh");
		assertThat(other.messages()).noneMatch(ClaimedMessage::suspect);

		assertThat(redis.store().leases().ack(TOPIC, List.of(running.lease()))).isEqualTo(1);
		ClaimedMessage next = redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 5, true).messages().get(0);
		assertThat(next.suspect()).isTrue();
		assertThat(next.id()).isNotEqualTo(running.id());
	}

	/**
	 * Waits until {@code count} suspects wait, none is leased, and all are due (a suspect charged for a run waits a
	 * lease more, here the short one of the claims that find the leases ended).
	 */
	private void awaitSuspects(int count) {
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, SHORT_LEASE, 5);
			return String.valueOf(count).equals(redis.get().call("SCARD", key("suspect")))
					&& "0".equals(redis.get().call("ZCOUNT", key("leased"), "-inf", "+inf"))
					&& String.valueOf(count).equals(redis.get().call("ZCOUNT", key("pending"), "-inf",
							String.valueOf(redis.fixture().redisTime().toEpochMilli())));
		});
	}

	@Test
	void aSuspectChargedForARunWhoseLeaseRunsOutWaitsALeaseBeforeItRunsAgain() {
		schedule("killer", "k");
		assertThat(redis.store().leases().claim(TOPIC, 1, 100, 5).messages()).hasSize(1);
		awaitSuspects(1);
		ClaimedMessage run = redis.store().leases().claim(TOPIC, List.of(), 5, 100, 5, true).messages().get(0);
		assertThat(run.suspect()).isTrue();
		// its consumer dies again: the claim that finds its lease ended (leasing for a minute) puts it back a minute
		// later, not at its due time, so that consumers do not die one after another as fast as its leases end
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 5);
			return "0".equals(redis.get().call("ZCOUNT", key("leased"), "-inf", "+inf"));
		});
		long dueMillis = (long) Double.parseDouble(RedisFixture.waiting(redis.get(), key("pending")).get("killer"));
		assertThat(dueMillis).isGreaterThan(redis.fixture().redisTime().toEpochMilli() + LEASE / 2);
		assertThat(redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 5, true).messages()).isEmpty();
	}

	@Test
	void aConsumerThatDiesWithABatchChargesNobodyAndTheKillerUsesUpOnlyItsOwnAttempts() {
		for (int i = 0; i < 5; i++) {
			schedule("m" + i, "p" + i);
		}
		// a consumer leases a batch (no attempt counted), starts some, and dies: nobody knows which one killed it
		Claim batch = redis.store().leases().claim(TOPIC, 5, 100, 1);
		assertThat(batch.messages()).hasSize(5).allSatisfy((message) -> {
			assertThat(message.attempt()).isEqualTo(1);
			assertThat(message.suspect()).isFalse();
			assertThat(message.lease().token()).as("one token per claim").isEqualTo(batch.messages().get(0).lease().token());
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 1);
			return "5".equals(redis.get().call("SCARD", key("suspect")));
		});
		assertThat(redis.get().call("HLEN", key("tries"))).as("no attempt counted for the crash").isEqualTo("0");

		// each then runs alone as a suspect, its attempt counted before it starts: the neighbours succeed at their
		// first attempt (max attempts 1), the killer kills its consumer once more
		String killer = "m2";
		Lease killersLease = null;
		for (int i = 0; i < 5; i++) {
			ClaimedMessage suspect = redis.store().leases().claim(TOPIC, List.of(), 5, 1000, 1, true).messages().get(0);
			assertThat(suspect.suspect()).isTrue();
			assertThat(suspect.attempt()).isEqualTo(1);
			if (suspect.id().equals(killer)) {
				killersLease = suspect.lease();
			}
			else {
				assertThat(redis.store().leases().ack(TOPIC, List.of(suspect.lease()))).isEqualTo(1);
			}
		}
		assertThat(killersLease).isNotNull();
		// its lease runs out: it has used its only attempt (its batched run was not charged) and goes to the dead
		// letters; no neighbour does
		Claim after = awaitClaimOrBurial();
		assertThat(after.buried()).isEqualTo(1);
		List<StoredDeadLetter> dead = redis.store().deadLetters().list(TOPIC, 0, 10);
		assertThat(dead).singleElement().satisfies((letter) -> {
			assertThat(letter.id()).isEqualTo(killer);
			assertThat(letter.attempts()).isEqualTo(1);
			assertThat(letter.error()).startsWith("Lease expired");
		});
		assertThat(redis.store().messages().stats(TOPIC).dead()).isEqualTo(1);
	}

	private Claim awaitClaimOrBurial() {
		Claim[] claim = new Claim[1];
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			claim[0] = redis.store().leases().claim(TOPIC, List.of(), 5, SHORT_LEASE, 1, true);
			return claim[0].buried() > 0 || !claim[0].messages().isEmpty();
		});
		return claim[0];
	}

	@Test
	void aClaimAcknowledgesThenLeasesABatchUnderOneTokenAndAFailureCountsItsAttempt() {
		schedule("m1", "p1");
		schedule("m2", "p2");
		schedule("m3", "p3");
		ClaimedMessage first = claimOne(LEASE);
		// the same lease twice deletes the message once
		Claim next = redis.store().leases().claim(TOPIC, List.of(first.lease(), first.lease()), 1, LEASE, 10, true);
		assertThat(next.messages()).singleElement().satisfies((message) -> {
			assertThat(message.id()).isNotEqualTo(first.id());
			assertThat(message.attempt()).isEqualTo(1);
		});
		assertThat(next.nextWakeDelayMicros()).as("one more is due").isZero();
		TopicCounts counts = redis.store().messages().stats(TOPIC);
		assertThat(counts.waiting() + counts.ready()).isEqualTo(1);
		assertThat(counts.leased()).isEqualTo(1);
		assertThat(redis.get().call("HGET", key("lease"), next.messages().get(0).id()))
			.as("a batched lease counts no attempt").endsWith(":0");

		// acknowledging only: nothing more is leased
		ClaimedMessage second = next.messages().get(0);
		assertThat(redis.store().leases().claim(TOPIC, List.of(second.lease()), 0, LEASE, 10, true).messages())
			.isEmpty();
		assertThat(redis.store().messages().stats(TOPIC).leased()).isZero();

		// a graceful hand-back does not count the attempt; a failure does
		ClaimedMessage third = redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 10, true).messages().get(0);
		assertThat(redis.store().leases().release(TOPIC, List.of(third.lease()))).isEqualTo(1);
		ClaimedMessage again = claimOne(LEASE);
		assertThat(again.attempt()).isEqualTo(1);
		assertThat(redis.store().leases().retry(TOPIC, again.lease(), 0, "failed")).isTrue();
		assertThat(redis.get().call("HGET", key("tries"), again.id())).isEqualTo("1");
		ClaimedMessage retried = awaitClaim(LEASE);
		assertThat(retried.attempt()).isEqualTo(2);
		// acknowledged, nothing of it is left
		redis.store().leases().ack(TOPIC, List.of(retried.lease()));
		assertThat(redis.get().call("HLEN", key("tries"))).isEqualTo("0");
		assertThat(redis.store().leases().claim(TOPIC, List.of(), 5, LEASE, 10, true).nextWakeDelayMicros())
			.isEqualTo(-1);
	}

	@Test
	void leasesAreKeptInHashedEncodingsWhileHeldAndLeaveNoKeyWhenTheLastOneEnds() {
		for (int i = 0; i < 3; i++) {
			schedule("m" + i, "p" + i);
		}
		Claim claim = redis.store().leases().claim(TOPIC, 3, LEASE, 10);
		assertThat(claim.messages()).hasSize(3);
		// a few leases only, yet no listpack: a lookup does not scan the other leases
		assertThat(redis.get().call("OBJECT", "ENCODING", key("lease"))).isEqualTo("hashtable");
		assertThat(redis.get().call("OBJECT", "ENCODING", key("leased"))).isEqualTo("skiplist");
		assertThat(redis.store().messages().stats(TOPIC).leased()).as("the anchor is not a lease").isEqualTo(3);
		assertThat(claim.nextWakeDelayMicros()).as("the next wake-up is the first lease deadline, not the anchor's")
			.isPositive()
			.isLessThanOrEqualTo(LEASE * 1000);

		// every way a lease ends: acknowledged, handed back, failed
		ClaimedMessage acked = claim.messages().get(0);
		ClaimedMessage released = claim.messages().get(1);
		ClaimedMessage failed = claim.messages().get(2);
		redis.store().leases().ack(TOPIC, List.of(acked.lease()));
		assertThat(redis.store().leases().release(TOPIC, List.of(released.lease()))).isEqualTo(1);
		assertThat(redis.store().messages().stats(TOPIC).leased()).isEqualTo(1);
		assertThat(redis.get().call("EXISTS", key("lease"), key("leased"))).isEqualTo("2");
		assertThat(redis.store().leases().bury(TOPIC, failed.lease(), "failed")).isTrue();
		assertThat(redis.get().call("EXISTS", key("lease"), key("leased"))).as("no lease held, no lease key")
			.isEqualTo("0");
	}

	@Test
	void aMessageIsNeverClaimedBeforeItsDueTimeNotEvenByAMillisecond() {
		for (int i = 0; i < 100; i++) {
			String id = "early-" + i;
			Instant before = redis.fixture().redisTime();
			redis.store().messages().schedule(TOPIC, List.of(message(id, DueTime.in(1000), "x")));
			Claim claim;
			do {
				claim = redis.store().leases().claim(TOPIC, 1, LEASE, 10);
			}
			while (claim.messages().isEmpty());
			ClaimedMessage claimed = claim.messages().get(0);
			assertThat(claimed.id()).isEqualTo(id);
			assertThat(claimed.dueAt()).isAfterOrEqualTo(before.plusMillis(1));
			assertThat(claim.serverTime()).as("claimed at").isAfterOrEqualTo(before.plusMillis(1));
			redis.store().leases().ack(TOPIC, List.of(claimed.lease()));
		}
	}

	@Test
	void aZeroDelayMessageIsDueAtOnce() {
		redis.store().messages().schedule(TOPIC, List.of(message("now", DueTime.in(0), "x")));
		assertThat(redis.store().leases().claim(TOPIC, 1, LEASE, 10).messages()).hasSize(1);
	}

	@Test
	void aCorruptEnvelopeIsReportedUnreadableNotThrown() {
		// a 15-byte envelope claiming 10^8 headers: decoding it once allocated that many slots
		byte[] corrupt = ByteBuffer.allocate(15).put((byte) 1).putLong(0).put(new byte[] { (byte) 0x80, (byte) 0xC2,
				(byte) 0xD7, 0x2F }).array();
		schedule("bad", "x");
		hset(key("body:0"), "bad", corrupt);
		ClaimedMessage claimed = claimOne(LEASE);
		assertThat(claimed.message().isReadable()).isFalse();
		assertThat(claimed.message().malformation()).contains("header count");
		assertThat(redis.store().leases().bury(TOPIC, claimed.lease(), "unreadable")).isTrue();
		assertThat(redis.store().deadLetters().list(TOPIC, 0, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.message().isReadable()).isFalse());
	}

	@Test
	void aCorruptAttemptCountBuriesThatMessageAndLeavesTheOthersIntact() {
		schedule("good", "g");
		schedule("bad", "b");
		redis.get().call("HSET", key("tries"), "bad", "not-a-number");
		Claim claim = redis.store().leases().claim(TOPIC, 2, LEASE, 10);
		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("good");
		assertThat(claim.buried()).isEqualTo(1);
		TopicCounts counts = redis.store().messages().stats(TOPIC);
		assertThat(counts.leased()).isEqualTo(1);
		assertThat(counts.dead()).isEqualTo(1);
		assertThat(counts.waiting() + counts.ready()).isZero();
		assertThat(redis.store().deadLetters().list(TOPIC, 0, 10)).singleElement().satisfies((letter) -> {
			assertThat(letter.id()).isEqualTo("bad");
			assertThat(letter.error()).contains("Corrupt attempt count");
			assertThat(letter.message().payload()).isEqualTo(bytes("b"));
		});
	}

	@Test
	void aCorruptLeaseRecordReturnsTheMessageWhenTheLeaseEnds() {
		schedule("m1", "p");
		ClaimedMessage claimed = claimOne(100);
		redis.get().call("HSET", key("lease"), "m1", "garbage");
		assertThat(redis.store().leases().ack(TOPIC, List.of(claimed.lease()))).isZero();
		// counted as a suspect's run, it waits a lease (the finding claim's, short here) before it runs again
		ClaimedMessage again = awaitClaim(SHORT_LEASE);
		assertThat(again.id()).isEqualTo("m1");
		assertThat(again.attempt()).isEqualTo(2);
	}

	@Test
	void anUnreadableBucketCountStopsEveryScriptBeforeItWritesAnything() {
		schedule("m1", "p");
		redis.get().call("HSET", key("meta"), "buckets", "inf");
		assertThatThrownBy(() -> redis.store().messages().schedule(TOPIC, List.of(message("m2", DueTime.in(0), "p"))))
			.hasStackTraceContaining("corrupt bucket count inf");
		assertThatThrownBy(() -> redis.store().leases().claim(TOPIC, 1, LEASE, 10))
			.hasStackTraceContaining("corrupt bucket count inf");
		assertThatThrownBy(() -> redis.store().messages().cancel(TOPIC, "m1")).hasStackTraceContaining("corrupt bucket count inf");
		TopicCounts counts = redis.store().messages().stats(TOPIC);
		assertThat(counts.ready() + counts.waiting()).isEqualTo(1);
		assertThat(counts.leased()).isZero();
	}

	@Test
	void aWaitingIdWithoutAnEnvelopeGoesToTheDeadLettersWithTheReason() {
		schedule("m1", "p");
		redis.get().call("HDEL", key("body:0"), "m1");
		Claim claim = redis.store().leases().claim(TOPIC, 1, LEASE, 10);
		assertThat(claim.messages()).isEmpty();
		assertThat(claim.buried()).isEqualTo(1);
		assertThat(redis.store().deadLetters().list(TOPIC, 0, 10)).singleElement().satisfies((letter) -> {
			assertThat(letter.id()).isEqualTo("m1");
			assertThat(letter.error()).isEqualTo("No stored envelope for this message");
			assertThat(letter.message().isReadable()).isFalse();
		});
	}

	@Test
	void anIdScheduledInBothFormatsIsDeliveredOnceAndTheFormat1CopyIsSetAside() {
		schedule("both", "new");
		hset(key("msgs"), "both", format1("\"old\""));
		redis.get().call("ZADD", key("due"), "0", "both");
		Claim claim = redis.store().leases().claim(TOPIC, 10, LEASE, 10);
		assertThat(claim.messages()).singleElement()
			.satisfies((message) -> assertThat(message.message().payload()).isEqualTo(bytes("new")));
		assertThat(redis.store().leases().claim(TOPIC, 10, LEASE, 10).messages()).isEmpty();
		assertThat(redis.get().call("HEXISTS", key("format1-conflicts"), "both")).isEqualTo("1");
		assertThat(redis.get().call("EXISTS", key("msgs"), key("due"))).isEqualTo("0");
	}

	@Test
	void aRedeliveryKeepsTheOriginalDueTime() {
		redis.store().messages().schedule(TOPIC, List.of(message("m1", DueTime.at(System.currentTimeMillis() - 60_000), "x")));
		ClaimedMessage first = claimOne(100);
		ClaimedMessage second = awaitClaim(LEASE);
		assertThat(second.dueAt()).isEqualTo(first.dueAt());
		assertThat(second.suspect()).as("its lease ran out without an outcome").isTrue();
		assertThat(second.attempt()).as("its batched run is not counted").isEqualTo(1);
	}

	@Test
	void schedulingWakesConsumersOnlyWhenItStoresANewEarliestMessage() {
		List<String> wakes = redis.fixture().recordWakes(TOPIC);
		redis.store().messages().schedule(TOPIC, List.of(message("first", DueTime.in(60_000_000), "p")));
		await().atMost(Duration.ofSeconds(10)).until(() -> wakes.size() == 1);
		// later than the head, alone and in a batch: no wake-up; then an earlier one, alone and in a batch
		redis.store().messages().schedule(TOPIC, List.of(message("later", DueTime.in(120_000_000), "p")));
		List<NewMessage> laterBatch = new ArrayList<>();
		List<NewMessage> earlierBatch = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			laterBatch.add(message("later-" + i, DueTime.in(90_000_000 + i), "p"));
			earlierBatch.add(message("earlier-" + i, DueTime.in(i == 7 ? 10_000_000 : 100_000_000), "p"));
		}
		redis.store().messages().schedule(TOPIC, laterBatch);
		redis.store().messages().schedule(TOPIC, List.of(message("earlier", DueTime.in(30_000_000), "p")));
		// an id that exists already stores nothing, so it wakes nobody, however early it was asked for
		redis.store().messages().schedule(TOPIC, List.of(message("later", DueTime.in(0), "p")));
		redis.store().messages().schedule(TOPIC, earlierBatch);
		// a few messages (one command each), the earliest in the middle
		redis.store().messages().schedule(TOPIC, List.of(message("few-1", DueTime.in(50_000_000), "p"),
				message("few-2", DueTime.in(5_000_000), "p"), message("few-3", DueTime.in(70_000_000), "p")));
		// one channel's messages arrive in order: a wake-up for any of the later ones would come before these
		await().atMost(Duration.ofSeconds(10)).until(() -> wakes.size() >= 4);
		assertThat(wakes).hasSize(4);
		assertThat(wakes).extracting(Long::parseLong)
			.satisfies((delays) -> {
				assertThat(delays.get(0)).isBetween(59_000L, 60_000L);
				assertThat(delays.get(1)).isBetween(29_000L, 30_000L);
				assertThat(delays.get(2)).isBetween(9_000L, 10_000L);
				assertThat(delays.get(3)).isBetween(4_000L, 5_000L);
			});
	}

	@Test
	void aBatchWhoseEarliestTiesWithTheHeadWakesConsumersOnlyIfOneOfItsMessagesIsTheNewHead() {
		List<String> wakes = redis.fixture().recordWakes(TOPIC);
		long due = System.currentTimeMillis() + 60_000;
		redis.store().messages().schedule(TOPIC, List.of(message("m-head", DueTime.at(due), "p")));
		// the same due time sorts by id: "a-tie" comes before "m-head" and is the new head, though the batch's earliest
		// (by the order of the call) is "z-tie"
		redis.store().messages().schedule(TOPIC, List.of(message("z-tie", DueTime.at(due), "p"),
				message("a-tie", DueTime.at(due), "p"), message("later", DueTime.at(due + 1000), "p")));
		// "n-tie" sorts after the head: not the new head, no wake-up
		redis.store().messages().schedule(TOPIC,
				List.of(message("n-tie", DueTime.at(due), "p"), message("later-2", DueTime.at(due + 1000), "p")));
		redis.store().messages().schedule(TOPIC,
				List.of(message("earlier", DueTime.at(due - 30_000), "p"), message("later-3", DueTime.at(due), "p")));
		await().atMost(Duration.ofSeconds(10)).until(() -> wakes.size() >= 3);
		assertThat(wakes).hasSize(3);
		assertThat(wakes).extracting(Long::parseLong).satisfies((delays) -> {
			assertThat(delays.get(0)).isBetween(58_000L, 60_000L);
			assertThat(delays.get(1)).isBetween(58_000L, 60_000L);
			assertThat(delays.get(2)).isBetween(28_000L, 30_000L);
		});
		assertThat(RedisFixture.waiting(redis.get(), key("pending")).keySet().iterator().next()).isEqualTo("earlier");
	}

	@Test
	void theNextWakeUpIncludesLeaseDeadlines() {
		schedule("m1", "p");
		Claim claim = redis.store().leases().claim(TOPIC, 1, 5_000, 10);
		assertThat(claim.messages()).hasSize(1);
		Claim next = redis.store().leases().claim(TOPIC, 1, 5_000, 10);
		assertThat(next.messages()).isEmpty();
		assertThat(next.nextWakeDelayMicros()).isBetween(1L, 5_000_000L);
	}

	@Test
	void deadLettersPastTheirAgeAreTrimmedOnABusyTopicWhoseClaimsAllLease() {
		// the upkeep runs on claims that lease nothing, and at most once a second on the others: a topic whose every
		// claim leases a message still trims
		RedisMessageStore shortLived = new RedisMessageStore(redis.fixture().connectionFactory(), RedisFixture.PREFIX,
				new DeadLetterPolicy(100, Duration.ofMillis(50)));
		schedule("dead", "p");
		assertThat(shortLived.leases().bury(TOPIC, claimOne(LEASE).lease(), "boom")).isTrue();
		AtomicInteger claims = new AtomicInteger();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			String id = "busy-" + claims.incrementAndGet();
			schedule(id, "p");
			Claim claim = shortLived.leases().claim(TOPIC, 1, LEASE, 10);
			assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly(id);
			shortLived.leases().ack(TOPIC, List.of(claim.messages().get(0).lease()));
			assertThat(shortLived.messages().stats(TOPIC).dead()).isZero();
		});
	}

	@Test
	void deadLettersPastTheirAgeAreTrimmedWithoutAnotherDeath() {
		RedisMessageStore shortLived = new RedisMessageStore(redis.fixture().connectionFactory(), RedisFixture.PREFIX,
				new DeadLetterPolicy(100, Duration.ofMillis(50)));
		schedule("m1", "p");
		ClaimedMessage claimed = claimOne(LEASE);
		assertThat(shortLived.leases().bury(TOPIC, claimed.lease(), "boom")).isTrue();
		assertThat(shortLived.messages().stats(TOPIC).dead()).isEqualTo(1);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			shortLived.leases().claim(TOPIC, 0, LEASE, 10);
			assertThat(shortLived.messages().stats(TOPIC).dead()).isZero();
		});
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	@Test
	void bucketsGrowAndShrinkWithTheTopicAndStayCompact() {
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			batch.add(message("b-" + i, DueTime.in(0), "p" + i));
		}
		assertThat(redis.store().messages().schedule(TOPIC, batch)).containsOnly(true);
		int buckets = Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"));
		assertThat(buckets).isBetween(40, 55);
		for (int i = 0; i < buckets; i++) {
			String bucket = key("body:" + i);
			assertThat(Integer.parseInt(redis.get().call("HLEN", bucket))).isLessThanOrEqualTo(128);
			assertThat(redis.get().call("OBJECT", "ENCODING", bucket)).isEqualTo("listpack");
		}
		// every message is found again, wherever its bucket is now
		assertThat(redis.store().messages().schedule(TOPIC, List.of(message("b-999", DueTime.in(0), "again")))).containsExactly(false);
		List<Lease> leases = new ArrayList<>();
		Claim claim;
		do {
			claim = redis.store().leases().claim(TOPIC, 100, LEASE, 10);
			claim.messages().forEach((message) -> {
				assertThat(message.message().payload()).isEqualTo(bytes("p" + message.id().substring(2)));
				leases.add(message.lease());
			});
		}
		while (!claim.messages().isEmpty());
		assertThat(leases).hasSize(1000);
		assertThat(redis.store().leases().ack(TOPIC, leases)).isEqualTo(1000);
		for (int i = 0; i < 10; i++) {
			redis.store().leases().claim(TOPIC, 0, LEASE, 10);
		}
		assertThat(redis.get().call("HGET", key("meta"), "buckets")).isNull();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	@Test
	void messagesOfGroupsAndPrioritiesGrowTheBucketsAsOthersDoAndClaimsDoNotMergeThemWhileTheyWait() {
		// grouped messages wait in their groups' sets and prioritized ones in their levels' sets, not in pending: the
		// buckets hold their envelopes all the same, and must be sized by them (they once counted pending alone, so a
		// grouped topic kept a dozen huge buckets, and each idle claim's upkeep merged what was left)
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			batch.add((i % 2 == 0) ? Scheduling.message("g-" + i, "tenant-" + (i % 10), Duration.ofHours(1))
					: Scheduling.message("p-" + i, 7, null, Duration.ofHours(1)));
		}
		assertThat(Scheduling.scheduleAll(redis.store(), TOPIC, batch)).containsOnly(true);
		assertThat(String.valueOf(RedisFixture.waiting(redis.get(), key("pending")).size())).isEqualTo("0");
		int buckets = Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"));
		assertThat(buckets).isBetween(40, 60);
		for (int i = 0; i < 20; i++) {
			redis.store().leases().claim(TOPIC, 0, LEASE, 10);
		}
		assertThat(Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"))).isEqualTo(buckets);
		for (int i = 0; i < buckets; i++) {
			assertThat(redis.get().call("OBJECT", "ENCODING", key("body:" + i))).isEqualTo("listpack");
		}
		assertThat(redis.store().messages().cancel(TOPIC, "g-998")).isTrue();
		assertThat(redis.store().messages().cancel(TOPIC, "p-999")).isTrue();
	}

	@ParameterizedTest
	@ValueSource(booleans = { false, true })
	void aCallSplitsAtMostTheBucketsItsOwnMessagesNeedSoThatNoCallHoldsRedisLong(boolean grouped) {
		// a topic whose buckets lag far behind it (all of 2,000 envelopes in its one bucket, as a restored or migrated
		// topic may be): a call of 100 messages splits at most the 5 buckets they need and 2 more (each split is a
		// tenth of a millisecond of Redis's time; a noisy estimate once asked for up to 64 at once, and calls of 250
		// that grew held Redis for 16 to 18 ms at a million waiting); the calls after it catch up, and every
		// envelope stays where the scripts find it
		String source = "lagging-source";
		List<NewMessage> first = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			first.add(message("l-" + i, DueTime.in(3_600_000_000L), "p" + i));
		}
		// (in the pending set, stored format 2, for the copy below)
		redis.store().setStoredFormat(2);
		Scheduling.scheduleAll(redis.store(), source, first);
		String sourceKey = RedisFixture.PREFIX + ":{" + source + "}:";
		int sourceBuckets = Integer.parseInt(redis.get().call("HGET", sourceKey + "meta", "buckets"));
		// copied inside Redis (an envelope may hold any bytes)
		redis.get().call("EVAL", """
				for i = 0, tonumber(ARGV[2]) - 1 do
				  local e = redis.call('HGETALL', ARGV[1] .. 'body:' .. i)
				  for j = 1, #e, 2 do redis.call('HSET', KEYS[1], e[j], e[j + 1]) end
				end
				local z = redis.call('ZRANGE', ARGV[1] .. 'pending', 0, -1, 'WITHSCORES')
				for j = 1, #z, 2 do redis.call('ZADD', KEYS[2], z[j + 1], z[j]) end
				""", "2", key("body:0"), key("pending"), sourceKey, String.valueOf(sourceBuckets));
		redis.store().setStoredFormat(5);
		assertThat(redis.get().call("HLEN", key("body:0"))).isEqualTo("2000");
		assertThat(redis.get().call("HGET", key("meta"), "buckets")).isNull();

		List<Integer> counts = new ArrayList<>();
		for (int call = 0; call < 60; call++) {
			List<NewMessage> batch = new ArrayList<>();
			for (int i = 0; i < 100; i++) {
				batch.add((grouped && i == 0) ? Scheduling.message("b-" + call + "-" + i, "g", Duration.ofHours(1))
						: message("b-" + call + "-" + i, DueTime.in(3_600_000_000L), "b"));
			}
			assertThat(redis.store().messages().schedule(TOPIC, batch)).hasSize(100).containsOnly(true);
			String count = redis.get().call("HGET", key("meta"), "buckets");
			counts.add((count != null) ? Integer.parseInt(count) : 1);
		}
		int before = 1;
		for (int call = 0; call < counts.size(); call++) {
			int splits = counts.get(call) - before;
			assertThat(splits).as("buckets split by call %d of 100, counts %s", call, counts)
				.isBetween((call < 10) ? 1 : 0, 7);
			before = counts.get(call);
		}
		// 8,000 messages: the buckets caught up with them (a quarter over 20 per bucket, by a noisy estimate)
		assertThat(counts.get(counts.size() - 1)).isGreaterThanOrEqualTo(8000 / 25 * 3 / 4);
		for (int i = 0; i < 2000; i += 97) {
			assertThat(redis.store().messages().lookup(TOPIC, "l-" + i)).as("l-%d", i).isNotNull();
		}
		assertThat(redis.store().messages().cancel(TOPIC, "l-1999")).isTrue();
		assertThat(redis.store().messages().cancel(TOPIC, "b-19-99")).isTrue();
	}

	@Test
	void loneSchedulesGrowTheBucketsAsBatchesDoAndEveryScriptFindsTheirEnvelopes() {
		// plain messages take the short script (schedule-plain.lua), which places ids and splits buckets itself: the
		// prelude's bodyOf (schedule.lua, claims, cancels) must find every envelope where it put them
		for (int i = 0; i < 1000; i++) {
			schedule("s-" + i, "p" + i);
		}
		int buckets = Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"));
		assertThat(buckets).isBetween(40, 55);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < buckets; i++) {
			String bucket = key("body:" + i);
			assertThat(Integer.parseInt(redis.get().call("HLEN", bucket))).isBetween(1, 128);
			assertThat(redis.get().call("OBJECT", "ENCODING", bucket)).isEqualTo("listpack");
			ids.addAll(List.of(redis.get().call("HKEYS", bucket).split("\n")));
		}
		assertThat(ids).hasSize(1000).doesNotHaveDuplicates();
		// a batch sees each id as existing, with a grouped message in it (schedule.lua) or without, and so does a lone
		// call
		List<NewMessage> again = new ArrayList<>();
		for (int i = 0; i < 1000; i += 50) {
			again.add(message("s-" + i, DueTime.in(0), "again"));
		}
		assertThat(redis.store().messages().schedule(TOPIC, again)).hasSize(20).containsOnly(false);
		again.add(Scheduling.message("s-3", "g", Duration.ZERO));
		assertThat(redis.store().messages().schedule(TOPIC, again)).hasSize(21).containsOnly(false);
		assertThat(redis.store().messages().schedule(TOPIC, List.of(message("s-999", DueTime.in(0), "again"))))
			.containsExactly(false);
		assertThat(redis.store().messages().cancel(TOPIC, "s-500")).isTrue();
		List<Lease> leases = new ArrayList<>();
		Claim claim;
		do {
			claim = redis.store().leases().claim(TOPIC, 100, LEASE, 10);
			claim.messages().forEach((message) -> {
				assertThat(message.message().payload()).isEqualTo(bytes("p" + message.id().substring(2)));
				leases.add(message.lease());
			});
		}
		while (!claim.messages().isEmpty());
		assertThat(leases).hasSize(999);
		assertThat(redis.store().leases().ack(TOPIC, leases)).isEqualTo(999);
		assertThat(claim.buried()).isZero();
		assertThat(redis.store().deadLetters().list(TOPIC, 0, 10)).isEmpty();
	}

	@Test
	void anAcknowledgementWhoseBucketHashIsWrongStillDeletesTheEnvelopeFromItsOwnBucket() {
		// the client sends each acknowledged id's bucket hash (so that Redis computes no SHA-1 per delivered message);
		// a hash that finds no envelope, not hex, empty or another id's, is never trusted: the id's own bucket is
		for (int i = 0; i < 300; i++) {
			schedule("h-" + i, "p" + i);
		}
		int buckets = Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"));
		assertThat(buckets).isGreaterThan(4);
		List<Lease> leases = new ArrayList<>();
		Claim claim;
		do {
			claim = redis.store().leases().claim(TOPIC, 100, LEASE, 10);
			claim.messages().forEach((message) -> leases.add(message.lease()));
		}
		while (!claim.messages().isEmpty());
		assertThat(leases).hasSize(300);
		byte[] otherHash = new BucketHash().hash(bytes("another id"));
		String[] wrong = { "zzzzzzzz", "", new String(otherHash, StandardCharsets.US_ASCII) };
		List<String> args = new ArrayList<>(List.of("EVAL",
				new String(Script.load("ack").text(), StandardCharsets.UTF_8), "1", key("pending")));
		List<String> acked = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			Lease lease = leases.get(i);
			args.addAll(List.of(lease.id(), String.valueOf(lease.token()), wrong[i % wrong.length]));
			acked.add(lease.id());
		}

		assertThat(redis.get().call(args.toArray(String[]::new))).isEqualTo("30");

		List<String> stored = new ArrayList<>();
		for (int i = 0; i < buckets; i++) {
			String ids = redis.get().call("HKEYS", key("body:" + i));
			if (ids != null && !ids.isEmpty()) {
				stored.addAll(List.of(ids.split("\n")));
			}
		}
		assertThat(stored).hasSize(270).doesNotContainAnyElementsOf(acked);
		// and the right hashes, as the store sends them, delete the rest
		assertThat(redis.store().leases().ack(TOPIC, leases.subList(30, 300))).isEqualTo(270);
		for (int i = 0; i < buckets; i++) {
			assertThat(redis.get().call("EXISTS", key("body:" + i))).isEqualTo("0");
		}
	}

	@Test
	void aBatchStoresEachNewIdOnceAndKeepsTheFirstOfADuplicate() {
		schedule("exists", "old");
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			batch.add(message("n-" + i, DueTime.in(0), "p" + i));
		}
		batch.set(10, message("exists", DueTime.in(0), "new"));
		batch.set(20, message("n-5", DueTime.in(0), "second"));
		List<Boolean> stored = redis.store().messages().schedule(TOPIC, batch);
		assertThat(stored).hasSize(30);
		assertThat(stored.get(10)).isFalse();
		assertThat(stored.get(20)).isFalse();
		assertThat(stored.stream().filter((flag) -> flag)).hasSize(28);
		Claim claim = redis.store().leases().claim(TOPIC, 100, LEASE, 10);
		assertThat(claim.messages()).hasSize(29);
		assertThat(claim.messages()).filteredOn((message) -> message.id().equals("n-5")).singleElement()
			.satisfies((message) -> assertThat(message.message().payload()).isEqualTo(bytes("p5")));
		assertThat(claim.messages()).filteredOn((message) -> message.id().equals("exists")).singleElement()
			.satisfies((message) -> assertThat(message.message().payload()).isEqualTo(bytes("old")));
	}

	@Test
	void messagesStoredInFormat1AreDeliveredCancelledAndKeptUnique() {
		long now = System.currentTimeMillis();
		TestRedis server = redis.get();
		for (String id : List.of("due", "waiting", "dead", "leased")) {
			hset(key("msgs"), "old-" + id, format1("\"" + id + "\""));
		}
		server.call("ZADD", key("due"), Long.toString(now - 1000), "old-due", Long.toString(now + 3_600_000),
				"old-waiting");
		server.call("ZADD", key("dead"), Long.toString(now - 5000), "old-dead");
		server.call("HSET", key("errors"), "old-dead", "java.lang.IllegalStateException: old");
		server.call("HSET", key("attempts"), "old-dead", "3", "old-leased", "1");
		server.call("ZADD", key("inflight"), Long.toString(now - 10), "old-leased");

		assertThat(redis.store().messages().schedule(TOPIC, List.of(message("old-waiting", DueTime.in(0), "new"))))
			.as("an id stored in format 1 exists")
			.containsExactly(false);
		TopicCounts counts = redis.store().messages().stats(TOPIC);
		assertThat(counts.dead()).isEqualTo(1);
		assertThat(counts.waiting() + counts.ready() + counts.leased()).isEqualTo(3);

		Claim claim = redis.store().leases().claim(TOPIC, 10, LEASE, 10);
		assertThat(claim.messages()).extracting(ClaimedMessage::id)
			.containsExactlyInAnyOrder("old-due", "old-leased");
		ClaimedMessage due = claim.messages().stream().filter((m) -> m.id().equals("old-due")).findFirst().get();
		assertThat(due.message().payload()).isEqualTo(bytes("\"due\""));
		assertThat(due.message().headers()).containsEntry("k", "v");
		assertThat(due.message().createdAt()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
		assertThat(due.attempt()).isEqualTo(1);
		ClaimedMessage leased = claim.messages().stream().filter((m) -> m.id().equals("old-leased")).findFirst().get();
		assertThat(leased.attempt()).as("format 1 counted the expired claim").isEqualTo(2);

		assertThat(redis.store().messages().cancel(TOPIC, "old-waiting")).isTrue();
		assertThat(redis.store().deadLetters().list(TOPIC, 0, 10)).singleElement().satisfies((letter) -> {
			assertThat(letter.id()).isEqualTo("old-dead");
			assertThat(letter.attempts()).isEqualTo(3);
			assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: old");
			assertThat(letter.message().payload()).isEqualTo(bytes("\"dead\""));
		});
		assertThat(redis.store().leases().ack(TOPIC, claim.messages().stream().map(ClaimedMessage::lease).toList())).isEqualTo(2);
		assertThat(redis.store().deadLetters().purgeAll(TOPIC)).isEqualTo(1);
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	/** A message as format 1 stored it: version 1, int64 creation time, one header, the payload. */
	private static byte[] format1(String payload) {
		ByteBuffer buffer = ByteBuffer.allocate(1 + 8 + 1 + 2 + 2 + payload.length());
		buffer.put((byte) 1).putLong(1_700_000_000_000L).put((byte) 1);
		buffer.put((byte) 1).put((byte) 'k').put((byte) 1).put((byte) 'v');
		buffer.put(bytes(payload));
		return buffer.array();
	}

	private void hset(String key, String field, byte[] value) {
		try (var connection = redis.fixture().connectionFactory().getConnection()) {
			connection.hashCommands().hSet(bytes(key), bytes(field), value);
		}
	}

	@Test
	void aMessageWhoseLeaseRanOutWithoutAnOutcomeIsASuspectUntilItsHandlerHasOne() {
		schedule("m1", "p");
		schedule("m2", "p");
		assertThat(redis.store().leases().claim(TOPIC, 2, 100, 10).messages()).hasSize(2);
		// the consumer died with both running: once their leases run out, a claim's upkeep makes both suspects
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 10);
			return "2".equals(redis.get().call("SCARD", key("suspect")));
		});

		Claim refused = redis.store().leases().claim(TOPIC, List.of(), 2, LEASE, 10, false);
		assertThat(refused.messages()).as("a consumer running a suspect leases no other").isEmpty();
		assertThat(refused.nextWakeDelayMicros()).as("suspects it may not lease are not due now for it").isNotZero();

		Claim first = redis.store().leases().claim(TOPIC, List.of(), 2, LEASE, 10, true);
		assertThat(first.messages()).as("one suspect per claim").singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo("m1");
			assertThat(message.suspect()).isTrue();
			assertThat(message.attempt()).as("its batched run was not counted; this one is").isEqualTo(1);
		});
		// handed back unstarted (a stop), it is still a suspect
		redis.store().leases().release(TOPIC, List.of(first.messages().get(0).lease()));
		ClaimedMessage again = redis.store().leases().claim(TOPIC, List.of(), 2, LEASE, 10, true).messages().get(0);
		assertThat(again.id()).isEqualTo("m1");
		assertThat(again.suspect()).isTrue();
		// its handler finished: no longer a suspect
		redis.store().leases().ack(TOPIC, List.of(again.lease()));
		assertThat(redis.get().call("SISMEMBER", key("suspect"), "m1")).isEqualTo("0");

		ClaimedMessage second = redis.store().leases().claim(TOPIC, List.of(), 2, LEASE, 10, true).messages().get(0);
		assertThat(second.id()).isEqualTo("m2");
		assertThat(second.suspect()).isTrue();
		// its handler failed (it did not kill the JVM): retried as an ordinary message
		assertThat(redis.store().leases().retry(TOPIC, second.lease(), 0, "failed")).isTrue();
		assertThat(redis.get().call("SCARD", key("suspect"))).isEqualTo("0");
		ClaimedMessage retried = awaitClaim(LEASE);
		assertThat(retried.id()).isEqualTo("m2");
		assertThat(retried.suspect()).isFalse();
	}

	@Test
	void aClaimRedisRunsAfterTheCallerGaveUpLeasesNothing() {
		schedule("m1", "p");
		// a first reply shows the store the server's clock
		redis.store().leases().claim(TOPIC, 0, LEASE, 10);
		// Redis stops answering for longer than the command timeout (2 s): the claim times out in the client, and
		// Redis runs it when the pause ends
		redis.get().call("CLIENT", "PAUSE", "3000");
		assertThatThrownBy(() -> redis.store().leases().claim(TOPIC, 1, LEASE, 10)).isInstanceOf(DataAccessException.class);

		// nothing was leased for a caller that had gone: the message is claimed at once, its attempt not counted
		ClaimedMessage claimed = awaitClaim(LEASE);
		assertThat(claimed.id()).isEqualTo("m1");
		assertThat(claimed.attempt()).isEqualTo(1);
	}

	@Test
	void aDelayCountedFromAMomentThatHasPassedIsSentWhatIsLeftOfIt() {
		Instant before = redis.fixture().redisTime();
		DueTime due = DueTime.in(1_000_000, System.nanoTime() - Duration.ofMillis(400).toNanos());
		assertThat(redis.store().messages().schedule(TOPIC, List.of(message("m", due, "p")))).containsExactly(true);
		Instant after = redis.fixture().redisTime();

		double score = Double.parseDouble(RedisFixture.waiting(redis.get(), key("pending")).get("m"));
		Instant dueAt = Instant.EPOCH.plus(Math.round(score * 1000), ChronoUnit.MICROS);
		assertThat(dueAt).isAfterOrEqualTo(before.plusMillis(600)).isBeforeOrEqualTo(after.plusMillis(600));
	}

	private void schedule(String id, String payload) {
		assertThat(redis.store().messages().schedule(TOPIC, List.of(message(id, DueTime.in(0), payload)))).containsExactly(true);
	}

	private static NewMessage message(String id, DueTime due, String payload) {
		return new NewMessage(id, due, Instant.now(), Map.of(), bytes(payload));
	}

	private ClaimedMessage claimOne(long leaseMillis) {
		Claim claim = redis.store().leases().claim(TOPIC, 1, leaseMillis, 10);
		assertThat(claim.messages()).hasSize(1);
		return claim.messages().get(0);
	}

	private ClaimedMessage awaitClaim(long leaseMillis) {
		return awaitClaim(1, leaseMillis, 10).messages().get(0);
	}

	/** Claims until something comes back or is buried: leases end on the Redis clock. */
	private Claim awaitClaim(int limit, long leaseMillis, int maxAttempts) {
		Claim[] result = new Claim[1];
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			result[0] = redis.store().leases().claim(TOPIC, limit, leaseMillis, maxAttempts);
			return !result[0].messages().isEmpty() || result[0].buried() > 0;
		});
		return result[0];
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
