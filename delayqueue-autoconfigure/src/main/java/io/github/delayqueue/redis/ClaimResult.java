package io.github.delayqueue.redis;

import java.util.List;

/**
 * The result of one claim.
 *
 * @param serverTimeMillis the Redis clock when the claim ran
 * @param messages the claimed messages, in due order
 * @param nextDueDelayMillis how long after the claim the earliest waiting message is due, or {@code -1} if
 * none is waiting
 */
public record ClaimResult(long serverTimeMillis, List<ClaimedMessage> messages, long nextDueDelayMillis) {
}
