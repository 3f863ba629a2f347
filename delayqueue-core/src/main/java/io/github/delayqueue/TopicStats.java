package io.github.delayqueue;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A topic's messages counted by state, read at one instant of the Redis clock.
 *
 * @param topic the topic
 * @param waiting messages due later (scheduled, or waiting for a retry)
 * @param ready messages due now but not yet claimed by a consumer
 * @param inflight messages claimed by a consumer: handler running, or waiting in that consumer for a free handler
 * @param retrying messages that failed at least once and are not dead letters: waiting for their next attempt, or
 * running it (so they are counted in {@code waiting}, {@code ready} or {@code inflight} too); 0 where an
 * implementation does not count them
 * @param dead messages that failed every attempt, or could not be read
 * @param nextDueAt when the earliest waiting or ready message is due (Redis clock), or {@code null} if none is
 * @since 0.1.0
 */
public record TopicStats(String topic, long waiting, long ready, long inflight, long retrying, long dead,
		@Nullable Instant nextDueAt) {

	/**
	 * Creates the counts of an implementation that does not count retrying messages (as before 0.3).
	 * @param topic the topic
	 * @param waiting messages due later
	 * @param ready messages due now but not yet claimed
	 * @param inflight messages claimed by a consumer
	 * @param dead dead letters
	 * @param nextDueAt when the earliest waiting or ready message is due, or {@code null}
	 */
	public TopicStats(String topic, long waiting, long ready, long inflight, long dead, @Nullable Instant nextDueAt) {
		this(topic, waiting, ready, inflight, 0, dead, nextDueAt);
	}

	/**
	 * Messages that are waiting or ready: not yet delivered.
	 * @return {@code waiting + ready}
	 */
	public long pending() {
		return this.waiting + this.ready;
	}

}
