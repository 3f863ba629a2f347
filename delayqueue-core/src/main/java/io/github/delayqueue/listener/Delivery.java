package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.redis.ClaimedMessage;

/**
 * A leased message on its way to a handler, with the Redis and local time of its claim (for the lateness at handler
 * start) and its earliest start.
 *
 * @param message the leased message
 * @param claimServerTime the Redis clock when it was claimed
 * @param claimedNanos {@link System#nanoTime()} when the claim's reply came back
 * @param notBeforeNanos the {@link System#nanoTime()} before which it must not start: its due time, counted on this
 * clock from the claim's reply (which came after Redis read its clock, so never before the due time on the Redis
 * clock); {@code claimedNanos} for a message that was due when claimed, later for one leased ahead
 */
record Delivery(ClaimedMessage message, Instant claimServerTime, long claimedNanos, long notBeforeNanos) {

	/**
	 * A message a claim leased.
	 * @param message the leased message
	 * @param claimServerTime the Redis clock when it was claimed
	 * @param claimedNanos {@link System#nanoTime()} when the claim's reply came back
	 * @return the delivery
	 */
	static Delivery of(ClaimedMessage message, Instant claimServerTime, long claimedNanos) {
		long aheadNanos = Duration.between(claimServerTime, message.dueAt()).toNanos();
		// the due time came back rounded to the microsecond: one more keeps it from starting a fraction early
		return new Delivery(message, claimServerTime, claimedNanos,
				(aheadNanos <= 0) ? claimedNanos : claimedNanos + aheadNanos + 1_000);
	}

	/** Whether it was leased ahead of its due time, which has not come yet. */
	boolean isEarly(long nowNanos) {
		return this.notBeforeNanos - nowNanos > 0;
	}

}
