package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A claim leases the messages due within its lookahead, and nothing beyond; the consumer reckons each one's due time
 * on its own clock from the claim's Redis time, so that no handler starts before it.
 */
class LookaheadTests {

	private static final String TOPIC = "ahead";

	private static final long LEASE = 60_000;

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());

	private final RedisDelayedQueue queue = this.fixture.queue(this.store);

	private final RedisDelayedQueueAdmin admin = this.fixture.admin(this.store);

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aClaimLeasesWhatFallsDueWithinItsLookaheadAndNothingBeyond() {
		this.queue.schedule(TOPIC, "soon", "x", Duration.ofSeconds(2));
		this.queue.schedule(TOPIC, "later", "x", Duration.ofSeconds(60));

		Claim claim = this.store.leases()
			.claim(TOPIC, List.of(), 10, LEASE, 3, true, TimeUnit.SECONDS.toMicros(10));
		long claimedNanos = System.nanoTime();

		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("soon");
		ClaimedMessage soon = claim.messages().get(0);
		assertThat(soon.dueAt()).as("leased ahead of its due time").isAfter(claim.serverTime());
		assertThat(soon.attempt()).isEqualTo(1);
		long ahead = Duration.between(claim.serverTime(), soon.dueAt()).toNanos();
		assertThat(ahead).isBetween(TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(2));
		assertThat(new Delivery(soon, 0, claim.serverTime(), claimedNanos).dueNanos())
			.as("due as long after the reply as after the claim's Redis time")
			.isEqualTo(claimedNanos + ahead);
		assertThat(claim.nextWakeDelayMicros()).as("the next due time is the later message's")
			.isBetween(TimeUnit.SECONDS.toMicros(50), TimeUnit.SECONDS.toMicros(60));
	}

	@Test
	void aClaimWithoutLookaheadLeasesOnlyWhatIsDueNow() {
		this.queue.schedule(TOPIC, "soon", "x", Duration.ofSeconds(2));

		Claim claim = this.store.leases().claim(TOPIC, List.of(), 10, LEASE, 3, true, 0);

		assertThat(claim.messages()).isEmpty();
		assertThat(this.admin.stats(TOPIC).pending()).isEqualTo(1);
	}

	@Test
	void aMessageDueBeforeTheClaimIsDueAtOnceOnTheConsumersClock() {
		this.queue.schedule(TOPIC, "now", "x", Duration.ZERO);

		Claim claim = this.store.leases().claim(TOPIC, List.of(), 10, LEASE, 3, true, 1_000);
		long claimedNanos = System.nanoTime();

		assertThat(claim.messages()).hasSize(1);
		assertThat(new Delivery(claim.messages().get(0), 0, claim.serverTime(), claimedNanos).dueNanos())
			.isEqualTo(claimedNanos);
	}

	@Test
	void aSuspectIsNeverLeasedAhead() {
		this.queue.schedule(TOPIC, "suspect", "x", Duration.ofSeconds(2));
		this.queue.schedule(TOPIC, "batched", "x", Duration.ofSeconds(2));
		redis.get().call("SADD", RedisFixture.PREFIX + ":{" + TOPIC + "}:suspect", "suspect");

		Claim claim = this.store.leases()
			.claim(TOPIC, List.of(), 10, LEASE, 3, true, TimeUnit.SECONDS.toMicros(10));

		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("batched");
		assertThat(claim.messages()).noneMatch(ClaimedMessage::suspect);
	}

	@Test
	void aTopicWithControlsLeasesNothingAhead() {
		this.store.controls().limit(TOPIC, 1000.0, 1000, null);
		this.queue.schedule(TOPIC, "soon", "x", Duration.ofSeconds(2));
		this.queue.schedule(TOPIC, "now", "x", Duration.ZERO);

		Claim claim = this.store.leases()
			.claim(TOPIC, List.of(), 10, LEASE, 3, true, TimeUnit.SECONDS.toMicros(10));

		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("now");
	}

	@Test
	void aLookaheadOutsideZeroToHalfTheLeaseIsRefusedAndChangesNothing() {
		this.queue.schedule(TOPIC, "now", "x", Duration.ZERO);

		assertThatIllegalArgumentException().isThrownBy(() -> this.store.leases().claim(TOPIC, List.of(), 10, LEASE, 3, true, -1))
			.withMessageContaining("lookahead");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.store.leases().claim(TOPIC, List.of(), 10, LEASE, 3, true, LEASE * 1000));
		assertThat(this.admin.stats(TOPIC).ready()).isEqualTo(1);
	}

}
