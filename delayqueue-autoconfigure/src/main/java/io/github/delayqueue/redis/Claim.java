package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.List;

/**
 * The result of one claim.
 *
 * @param serverTime the Redis clock when the claim ran, to the microsecond
 * @param messages the leased messages, in due order: those it started first
 * @param nextWakeDelayMillis how long after the claim the earliest waiting message is due or the earliest lease
 * ends (whichever is first), or {@code -1} if there is neither
 * @param buried how many messages the claim moved to the dead letters because their attempts were used up
 */
public record Claim(Instant serverTime, List<ClaimedMessage> messages, long nextWakeDelayMillis, int buried) {
}
