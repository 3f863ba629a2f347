package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis time after which a claim's caller no longer waits for its reply (a Redis pause or a slow network longer
 * than the command timeout): a claim Redis runs later leases nothing, or its messages would be leased, their attempt
 * counted, with no handler to run them. The Redis clock is learnt per topic key from the claims' replies: the largest
 * "server time minus {@link System#nanoTime()}" seen (a reply's server time is from before it arrived, so the
 * largest is the closest).
 */
final class ClaimDeadlines {

	private static final byte[] NONE = "0".getBytes(StandardCharsets.US_ASCII);

	/** The client's command timeout ({@code 0}: unknown, no deadline). */
	private final long commandTimeoutMillis;

	private final Map<String, Long> serverClocks = new ConcurrentHashMap<>();

	ClaimDeadlines(RedisConnectionFactory connectionFactory) {
		this.commandTimeoutMillis = (connectionFactory instanceof LettuceConnectionFactory lettuce)
				? lettuce.getClientConfiguration().getCommandTimeout().toMillis() : 0;
	}

	/**
	 * The deadline of a claim sent now, as a script argument.
	 * @param topic the topic key the claim is for
	 * @return the Redis time in milliseconds, or {@code 0} (none) until a reply has shown the server's clock, or
	 * where the command timeout is unknown
	 */
	byte[] forClaimSentNow(String topic) {
		Long clock = this.serverClocks.get(topic);
		if (clock == null || this.commandTimeoutMillis <= 0) {
			return NONE;
		}
		long deadline = (System.nanoTime() + clock) / 1_000_000 + this.commandTimeoutMillis;
		return Replies.bytes(deadline);
	}

	/**
	 * Learns the server's clock from a claim's reply.
	 * @param topic the topic key the claim was for
	 * @param claim the reply (a handover that leased nothing carries no server time)
	 * @return the claim
	 */
	Claim remember(String topic, Claim claim) {
		Instant serverTime = claim.serverTime();
		if (!serverTime.equals(Instant.EPOCH)) {
			long clock = serverTime.getEpochSecond() * 1_000_000_000L + serverTime.getNano() - System.nanoTime();
			this.serverClocks.merge(topic, clock, Math::max);
		}
		return claim;
	}

}
