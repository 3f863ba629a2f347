package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.List;

/**
 * The result of one claim.
 *
 * @param serverTime the Redis clock when the claim ran, to the microsecond
 * @param messages the leased messages, in due order
 * @param nextWakeDelayMicros how long, in microseconds, after the claim the earliest waiting message is due or (for
 * {@link RedisMessageStore#claim}) the earliest lease ends, whichever is first; {@code 0} if a message is due now,
 * {@code -1} if there is neither
 * @param buried how many due messages the claim moved to the dead letters instead (attempts used up, or nothing
 * stored to deliver)
 */
public record Claim(Instant serverTime, List<ClaimedMessage> messages, long nextWakeDelayMicros, int buried) {
}
