package io.github.delayqueue.redis.internal;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A topic's messages counted by state at one instant of the Redis clock.
 *
 * @param waiting messages due later
 * @param ready messages due now, not yet claimed
 * @param leased messages claimed by a consumer, running or waiting there for a handler
 * @param dead dead letters
 * @param nextDueAt when the earliest waiting or ready message is due, or {@code null} if none is
 * @param retrying messages that failed at least once and are not dead: waiting for their next attempt or running it
 * (also counted in {@code waiting}, {@code ready} or {@code leased})
 *
 * @since 0.1.0
 */
public record TopicCounts(long waiting, long ready, long leased, long dead, @Nullable Instant nextDueAt,
		long retrying) {
}
