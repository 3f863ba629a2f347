package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Claims.ids;
import static io.github.delayqueue.redis.internal.Claims.leases;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Messages handed back unstarted, by their consumer ({@link LeaseOperations#release}: it stops, or will not start
 * them) or by undoing a claim whose reply never reached its consumer: whom they wake, and what they cost under a rate
 * limit.
 */
class HandBackTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "back";

	/** A lookahead that leases messages due within five seconds. */
	private static final long LOOKAHEAD_MICROS = 5_000_000;

	@Test
	void messagesHandedBackBeforeTheirDueTimeWakeTheConsumersAtItNotNow() {
		schedule("soon", Duration.ofSeconds(3));
		schedule("later", Duration.ofSeconds(4));
		Claim ahead = claim(Claimant.create(), 10, LOOKAHEAD_MICROS);
		assertThat(ids(ahead)).containsExactly("soon", "later");
		List<String> wakes = redis.fixture().recordWakes(TOPIC);

		assertThat(redis.store().leases().release(TOPIC, leases(ahead))).isEqualTo(2);

		await().atMost(Duration.ofSeconds(10)).until(() -> !wakes.isEmpty());
		assertThat(Long.parseLong(wakes.get(0))).as("the delay to the earliest one's due time, in ms")
			.isBetween(1L, 3_000L);
	}

	@Test
	void messagesHandedBackOnceDueWakeTheConsumersAtOnce() {
		schedule("due", Duration.ZERO);
		schedule("later", Duration.ofSeconds(4));
		Claim claim = claim(Claimant.create(), 10, LOOKAHEAD_MICROS);
		assertThat(ids(claim)).containsExactly("due", "later");
		List<String> wakes = redis.fixture().recordWakes(TOPIC);

		redis.store().leases().release(TOPIC, leases(claim));

		await().atMost(Duration.ofSeconds(10)).until(() -> !wakes.isEmpty());
		assertThat(wakes.get(0)).isEqualTo("0");
	}

	@Test
	void aLostClaimOfMessagesNotYetDueUndoneWakesTheConsumersAtTheirDueTimeNotNow() {
		schedule("soon", Duration.ofSeconds(3));
		Claimant claimant = Claimant.create();
		assertThat(ids(lostClaim(claimant, 10, LOOKAHEAD_MICROS))).containsExactly("soon");
		// the claimant sent it, and its reply never came
		claimant.next();
		List<String> wakes = redis.fixture().recordWakes(TOPIC);

		// only the upkeep: the lost claim's message waits again
		assertThat(claim(claimant, 0, 0).messages()).isEmpty();

		await().atMost(Duration.ofSeconds(10)).until(() -> !wakes.isEmpty());
		assertThat(redis.get().call("ZCARD", key("pending"))).isEqualTo("1");
		assertThat(Long.parseLong(wakes.get(0))).as("the delay to its due time, in ms").isBetween(1L, 3_000L);
	}

	@Test
	void underARateLimitMessagesHandedBackUnstartedDoNotPayAgainWhenLeasedAnew() {
		// a token every ten seconds, three saved up: the test runs on the three
		redis.store().controls().limit(TOPIC, 0.1, 3, null);
		schedule("m1", Duration.ZERO);
		schedule("m2", Duration.ZERO);
		schedule("m3", Duration.ZERO);
		Claim first = claim(Claimant.create(), 3, 0);
		assertThat(ids(first)).containsExactly("m1", "m2", "m3");

		assertThat(redis.store().leases().release(TOPIC, leases(first))).isEqualTo(3);

		assertThat(ids(claim(Claimant.create(), 3, 0))).as("leased anew on the tokens they gave back")
			.containsExactly("m1", "m2", "m3");
		schedule("m4", Duration.ZERO);
		assertThat(claim(Claimant.create(), 3, 0).messages()).as("no token beyond those").isEmpty();
	}

	@Test
	void underARateLimitALostClaimUndoneGivesItsTokensBack() {
		redis.store().controls().limit(TOPIC, 0.1, 3, null);
		schedule("m1", Duration.ZERO);
		schedule("m2", Duration.ZERO);
		schedule("m3", Duration.ZERO);
		Claimant claimant = Claimant.create();
		assertThat(ids(lostClaim(claimant, 3, 0))).containsExactly("m1", "m2", "m3");
		claimant.next();

		// undoes the lost claim, then leases its messages anew
		Claim next = claim(claimant, 3, 0);

		assertThat(ids(next)).as("leased anew on the tokens they gave back").containsExactly("m1", "m2", "m3");
		schedule("m4", Duration.ZERO);
		assertThat(claim(Claimant.create(), 3, 0).messages()).as("no token beyond those").isEmpty();
	}

	@Test
	void tokensHandedBackNeverFillTheBucketBeyondItsBurst() {
		// a fast rate: the bucket is full again a few ms after the first claim emptied it
		redis.store().controls().limit(TOPIC, 1000.0, 3, null);
		for (int i = 1; i <= 6; i++) {
			schedule("m" + i, Duration.ZERO);
		}
		Claim first = claim(Claimant.create(), 3, 0);
		assertThat(ids(first)).containsExactly("m1", "m2", "m3");

		redis.store().leases().release(TOPIC, leases(first));

		assertThat(claim(Claimant.create(), 6, 0).messages()).as("the burst, not the burst and the tokens given back")
			.hasSize(3);
	}

	/** A claim in the claimant's name (its first) whose reply it never receives (see {@link ClaimRecords}). */
	private Claim lostClaim(Claimant claimant, int limit, long lookaheadMicros) {
		return ClaimRecords.lost(redis.get(), TOPIC, claimant, 1, (standIn) -> claim(standIn, limit, lookaheadMicros));
	}

	private Claim claim(Claimant claimant, int limit, long lookaheadMicros) {
		return redis.store().leases().claim(TOPIC, claimant, List.of(), limit, LEASE, 10, false, lookaheadMicros);
	}

	private void schedule(String id, Duration delay) {
		Scheduling.schedule(redis.store(), TOPIC, Scheduling.message(id, delay));
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
