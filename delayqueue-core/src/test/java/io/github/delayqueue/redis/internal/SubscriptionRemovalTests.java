package io.github.delayqueue.redis.internal;

import java.time.Duration;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Removing a subscription, a chunk per call, while a listener of it still runs: a copy it forgot is not counted off its
 * topic's envelope a second time by a later acknowledgement, failure or release, so the other subscriptions keep
 * theirs; and its claims lease nothing once it is off the list.
 */
class SubscriptionRemovalTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "removed";

	private static final long LEASE = 60_000;

	@Test
	void aCopyForgottenByAnEarlierChunkIsNotCountedOffAgainByItsListener() {
		RedisMessageStore store = redis.store();
		store.subscriptions().declare(TOPIC, "gone");
		store.subscriptions().declare(TOPIC, "kept");
		Scheduling.scheduleAll(store, TOPIC, Scheduling.many("m", 3, null, Duration.ZERO));
		Claim leased = store.leases().claim(TOPIC + "@gone", 3, LEASE, 5);
		assertThat(leased.messages()).hasSize(3);

		// the first chunk forgets one leased copy; the listener, still running, then finishes all three
		assertThat(store.subscriptions().forget(TOPIC, "gone", 1, true)).isEqualTo(2);
		store.leases().ack(TOPIC + "@gone", leased.messages().stream().map(ClaimedMessage::lease).toList());
		while (store.subscriptions().forget(TOPIC, "gone", 1, false) > 0) {
			// the rest, a chunk at a time
		}

		// the other subscription still has every message to deliver, envelope and all
		Claim kept = store.leases().claim(TOPIC + "@kept", 10, LEASE, 5);
		assertThat(kept.messages()).extracting(ClaimedMessage::id).containsExactlyInAnyOrder("m-0", "m-1", "m-2");
		assertThat(kept.messages()).allSatisfy((message) -> assertThat(message.message()).isNotNull());
		assertThat(store.deadLetters().list(TOPIC + "@kept", 0, 10)).isEmpty();
		store.leases().ack(TOPIC + "@kept", kept.messages().stream().map(ClaimedMessage::lease).toList());
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).as("nothing left behind")
			.allMatch((key) -> key.endsWith(":subs") || key.endsWith(":s:gone:meta") || key.endsWith(":s:kept:meta")
					|| key.endsWith(":s:kept:claims"));
	}

	@Test
	void aSubscriptionOffTheListLeasesNothingMore() {
		RedisMessageStore store = redis.store();
		store.subscriptions().declare(TOPIC, "leaving");
		store.subscriptions().declare(TOPIC, "staying");
		store.subscriptions().forget(TOPIC, "leaving", 1000, true);
		Scheduling.scheduleAll(store, TOPIC, Scheduling.many("n", 2, null, Duration.ZERO));

		assertThat(store.leases().claim(TOPIC + "@leaving", 10, LEASE, 5).messages()).isEmpty();
		assertThat(store.leases().claim(TOPIC + "@staying", 10, LEASE, 5).messages()).hasSize(2);
		assertThat(store.subscriptions().of(TOPIC)).containsOnlyKeys("staying");
	}

}
