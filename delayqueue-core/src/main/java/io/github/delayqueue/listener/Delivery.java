package io.github.delayqueue.listener;

import java.time.Instant;

import io.github.delayqueue.redis.internal.ClaimedMessage;

/**
 * A leased message on its way to a handler, with the partition that leased it and the Redis and local time of its
 * claim (for the lateness at handler start, and for the due time of a message leased ahead of it).
 *
 * @param message the leased message
 * @param partition the index of the listener's partition that leased it (0 for a topic of one partition)
 * @param claimServerTime the Redis clock when it was claimed
 * @param claimedNanos {@link System#nanoTime()} when the claim's reply came back
 */
record Delivery(ClaimedMessage message, int partition, Instant claimServerTime, long claimedNanos) {

	/** Whether it is a suspect: its last lease ran out without an outcome, and it runs alone. */
	boolean suspect() {
		return this.message.suspect();
	}

	/**
	 * When the message falls due on the {@link System#nanoTime()} clock: as long after the claim's reply came back as
	 * its due time lies after the claim's Redis time. The reply came after Redis ran the claim, so this is never
	 * before the due time on the Redis clock.
	 * @return the due time, on the {@link System#nanoTime()} clock
	 */
	long dueNanos() {
		Instant due = this.message.dueAt();
		long aheadNanos = (due.getEpochSecond() - this.claimServerTime.getEpochSecond())
				* 1_000_000_000L + (due.getNano() - this.claimServerTime.getNano());
		return this.claimedNanos + Math.max(0, aheadNanos);
	}

}
