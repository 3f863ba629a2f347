package io.github.delayqueue.redis.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.github.delayqueue.redis.RedisMessageStore;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Claims for the store-level tests, straight through a {@link RedisMessageStore}, and what the tests read of a
 * {@link Claim}: its ids, its leases, its messages by group.
 */
final class Claims {

	/** The lease of the tests' claims: a minute, longer than any test. */
	static final long LEASE = 60_000;

	/** The attempts a message may make in the tests' claims. */
	static final int MAX_ATTEMPTS = 10;

	private Claims() {
	}

	/**
	 * Claims up to {@code limit} at a time until {@code total} came, carrying each claim's acknowledgements on the
	 * next and acknowledging the last ones; counts the messages by what {@code by} reads of each.
	 */
	static <K> Map<K, Integer> drain(RedisMessageStore store, String topic, int limit, int total,
			Function<ClaimedMessage, K> by) {
		Map<K, Integer> counts = new HashMap<>();
		List<Lease> acks = new ArrayList<>();
		int got = 0;
		while (got < total) {
			Claim claim = store.leases()
				.claim(topic, acks, Math.min(limit, total - got), LEASE, MAX_ATTEMPTS, false);
			assertThat(claim.messages()).as("every claim leases while backlogs remain").isNotEmpty();
			acks = leases(claim);
			for (ClaimedMessage message : claim.messages()) {
				counts.merge(by.apply(message), 1, Integer::sum);
			}
			got += claim.messages().size();
		}
		store.leases().ack(topic, acks);
		return counts;
	}

	/** The ids of a claim's messages, in the claim's order. */
	static List<String> ids(Claim claim) {
		return claim.messages().stream().map(ClaimedMessage::id).toList();
	}

	/** The leases of a claim's messages, in the claim's order. */
	static List<Lease> leases(Claim claim) {
		return claim.messages().stream().map(ClaimedMessage::lease).toList();
	}

	/** How many of a claim's messages each group got ({@code ""} for the messages without a group). */
	static Map<String, Integer> groupsOf(Claim claim) {
		Map<String, Integer> groups = new HashMap<>();
		for (ClaimedMessage message : claim.messages()) {
			groups.merge(groupOf(message), 1, Integer::sum);
		}
		return groups;
	}

	/** A claimed message's group, {@code ""} for none. */
	static String groupOf(ClaimedMessage message) {
		String group = message.message().group();
		return (group != null) ? group : "";
	}

}
