package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Claims.ids;
import static io.github.delayqueue.redis.internal.Claims.leases;
import static io.github.delayqueue.redis.internal.Scheduling.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A claim whose reply never reached its consumer: Redis ran it, the connection dropped before the reply came back,
 * and the client either sent it again after reconnecting (Lettuce does, by default) or reported it failed. Its
 * messages must not wait out their lease (and then run one at a time as suspects), and a suspect among them must not
 * be charged for a run that never happened. A claim whose reply a claimant never hears of is made by a stand-in
 * claimant, and Redis's record of it then moved to the claimant's id ({@link #lostClaim}): Redis holds what the claim
 * did, as if the claimant had sent it, and the claimant never received its reply.
 */
class LostClaimReplyTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "lost";

	@BeforeEach
	void setUp() {
		schedule("m1", "m2", "m3");
	}

	@Test
	void aClaimSentAgainAfterItsReplyWasLostLeasesItsMessagesAgainInsteadOfLeavingThemLeased() {
		Claimant claimant = Claimant.create();
		Claim lost = lostClaim(claimant, 1, 2, false);
		assertThat(ids(lost)).containsExactly("m1", "m2");

		// the same claim (its number, what its consumer had received) runs again: its first run is undone
		Claim again = claim(claimant, 2);

		assertThat(ids(again)).containsExactly("m1", "m2");
		assertThat(again.messages()).allSatisfy((message) -> {
			assertThat(message.suspect()).isFalse();
			assertThat(message.lease().token()).isNotEqualTo(lost.messages().get(0).lease().token());
		});
		assertThat(redis.get().call("ZCARD", key("leased"))).as("two leases and the anchor").isEqualTo("3");
		assertThat(redis.store().leases().ack(TOPIC, leases(lost))).as("the lost claim's leases are gone").isZero();
		assertThat(redis.store().leases().ack(TOPIC, leases(again))).isEqualTo(2);
		assertThat(redis.get().call("SCARD", key("suspect"))).isEqualTo("0");
		assertThat(redis.get().call("HLEN", key("tries"))).isEqualTo("0");
	}

	@Test
	void theClaimAfterOneThatFailedHandsItsMessagesBackAtOnce() {
		Claimant claimant = Claimant.create();
		assertThat(ids(lostClaim(claimant, 1, 2, false))).containsExactly("m1", "m2");
		// the claimant sent it too, and its reply never came
		claimant.next();

		// only the upkeep: nothing leased, and the failed claim's messages are waiting again, uncharged
		Claim next = claim(claimant, 0);

		assertThat(next.messages()).isEmpty();
		assertThat(next.nextWakeDelayMicros()).as("they are due now").isZero();
		assertThat(String.valueOf(RedisFixture.waiting(redis.get(), key("pending")).size())).isEqualTo("3");
		assertThat(redis.get().call("EXISTS", key("leased"))).isEqualTo("0");
		assertThat(redis.get().call("HEXISTS", key("claims"), idOf(claimant))).isEqualTo("0");
		assertThat(ids(claim(claimant, 3))).containsExactly("m1", "m2", "m3");
	}

	@Test
	void aSuspectWhoseClaimsReplyWasLostIsNotChargedForTheRunThatNeverHappened() {
		// m1's consumer died with it leased: its lease ran out without an outcome, and it is a suspect
		assertThat(ids(redis.store().leases().claim(TOPIC, 1, 100, 10))).containsExactly("m1");
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 10);
			return "1".equals(redis.get().call("SCARD", key("suspect")));
		});
		Claimant claimant = Claimant.create();
		Claim lost = lostClaim(claimant, 1, 1, true);
		assertThat(lost.messages()).singleElement().satisfies((message) -> {
			assertThat(message.suspect()).isTrue();
			assertThat(message.attempt()).as("counted as it is leased").isEqualTo(1);
		});
		claimant.next();

		Claim next = claim(claimant, 1, true);

		assertThat(next.messages()).singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo("m1");
			assertThat(message.suspect()).isTrue();
			assertThat(message.attempt()).as("the lost claim's attempt was never run, and is not counted")
				.isEqualTo(1);
		});
	}

	@Test
	void aClaimWhoseReplyArrivedKeepsItsLeases() {
		Claimant claimant = Claimant.create();
		Claim first = claim(claimant, 2);

		Claim second = claim(claimant, 1);

		assertThat(ids(second)).containsExactly("m3");
		assertThat(redis.store().leases().ack(TOPIC, leases(first))).isEqualTo(2);
	}

	@Test
	void aCopyOfAClaimThatRunsAfterALaterClaimOfItsConsumerLeasesNothingAndUndoesNothing() {
		Claimant earlier = Claimant.create();
		Claim first = claim(earlier, 1);
		Claim second = claim(earlier, 1);
		// the late claim is the first of a claimant whose second claim ran already: Redis's record of that claimant's
		// claims is the one of the two claims above
		Claimant late = Claimant.create();
		ClaimRecords.move(redis.get(), TOPIC, earlier, late, 2);

		Claim copy = claim(late, 3);

		assertThat(copy.messages()).isEmpty();
		assertThat(redis.store().leases().ack(TOPIC, leases(first))).isEqualTo(1);
		assertThat(redis.store().leases().ack(TOPIC, leases(second))).isEqualTo(1);
		assertThat(redis.get().call("HGET", key("claims"), idOf(late))).startsWith("2:");
	}

	@Test
	void anotherConsumersLostClaimIsNotThisConsumersToUndo() {
		Claimant other = Claimant.create();
		Claim lost = lostClaim(other, 1, 2, false);
		other.next();
		Claimant claimant = Claimant.create();

		Claim mine = claim(claimant, 3);

		assertThat(ids(mine)).containsExactly("m3");
		assertThat(redis.store().leases().ack(TOPIC, leases(lost))).as("still leased under the lost claim")
			.isEqualTo(2);
	}

	@Test
	void aConsumersLastClaimIsForgottenOnceItsLeaseEnded() {
		Claimant gone = Claimant.create();
		assertThat(ids(redis.store().leases().claim(TOPIC, gone, List.of(), 1, 100, 10, false, 0)))
			.containsExactly("m1");
		assertThat(redis.get().call("HEXISTS", key("claims"), idOf(gone))).isEqualTo("1");

		// its consumer claims no more: the upkeep of a later claim forgets it
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 10);
			return "0".equals(redis.get().call("HEXISTS", key("claims"), idOf(gone)));
		});
		assertThat(redis.get().call("EXISTS", key("claims"))).isEqualTo("0");
	}

	/**
	 * A claim in the claimant's name, numbered as its claim {@code number}, whose reply it never receives (see
	 * {@link ClaimRecords#lost}).
	 */
	private Claim lostClaim(Claimant claimant, long number, int limit, boolean mayLeaseSuspect) {
		return ClaimRecords.lost(redis.get(), TOPIC, claimant, number,
				(standIn) -> claim(standIn, limit, mayLeaseSuspect));
	}

	private Claim claim(Claimant claimant, int limit) {
		return claim(claimant, limit, false);
	}

	private Claim claim(Claimant claimant, int limit, boolean mayLeaseSuspect) {
		return redis.store().leases().claim(TOPIC, claimant, List.of(), limit, LEASE, 10, mayLeaseSuspect, 0);
	}

	private void schedule(String... ids) {
		for (String id : ids) {
			redis.store().messages().schedule(TOPIC, List.of(message(id, Duration.ZERO)));
		}
	}

	private static String idOf(Claimant claimant) {
		return ClaimRecords.idOf(claimant);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
