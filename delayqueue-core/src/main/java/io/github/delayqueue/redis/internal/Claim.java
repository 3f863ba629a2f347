package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.List;

/**
 * The result of one claim.
 *
 * @param serverTime the Redis clock when the claim ran (as it ended, where it leased messages), to the microsecond:
 * a consumer's clock started when the reply came runs behind it, never ahead; the delay to the next claim counts
 * from it
 * @param messages the leased messages, in due order
 * @param nextWakeDelayMicros how long, in microseconds, after the claim the earliest waiting message is due or (for
 * {@link LeaseOperations#claim}) the earliest lease ends, whichever is first; {@code 0} if a message is due now,
 * {@code -1} if there is neither
 * @param buried how many due messages the claim moved to the dead letters instead (attempts used up, or nothing
 * stored to deliver)
 * @param expired how many due messages the claim did not lease because their expiry deadline had passed (moved to
 * the dead letters or dropped, as each says)
 *
 * @since 0.1.0
 */
public record Claim(Instant serverTime, List<ClaimedMessage> messages, long nextWakeDelayMicros, int buried,
		int expired) {

	/**
	 * The result of a claim that found nothing expired.
	 * @param serverTime the Redis clock when the claim ran
	 * @param messages the leased messages
	 * @param nextWakeDelayMicros the delay to the next due time or lease deadline
	 * @param buried how many due messages went to the dead letters
	 */
	public Claim(Instant serverTime, List<ClaimedMessage> messages, long nextWakeDelayMicros, int buried) {
		this(serverTime, messages, nextWakeDelayMicros, buried, 0);
	}

}
