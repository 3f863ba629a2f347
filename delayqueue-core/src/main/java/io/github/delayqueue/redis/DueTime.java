package io.github.delayqueue.redis;

/**
 * A due time: a delay to the microsecond, counted from a moment on this JVM's monotonic clock (the start of the call
 * that scheduled the message), or an absolute Redis-clock time in milliseconds. A message is due once the Redis clock
 * has reached its due time: the script that stores it adds to its own clock the delay less the time that had passed
 * since that moment when the call was sent, so the delay counts from the call, never from a later moment, and a
 * skewed application clock changes nothing.
 *
 * @param relative whether {@code value} is a delay rather than an epoch time
 * @param value the delay in microseconds, or the epoch milliseconds
 * @param sinceNanos the {@link System#nanoTime()} the delay counts from (not used for an absolute time)
 * @since 0.1.0
 */
public record DueTime(boolean relative, long value, long sinceNanos) {

	/**
	 * A due time whose delay counts from now.
	 * @param relative whether {@code value} is a delay rather than an epoch time
	 * @param value the delay in microseconds, or the epoch milliseconds
	 */
	public DueTime(boolean relative, long value) {
		this(relative, value, System.nanoTime());
	}

	/**
	 * A delay from now.
	 * @param micros the delay in microseconds, zero or more
	 * @return the due time
	 */
	public static DueTime in(long micros) {
		return new DueTime(true, micros, System.nanoTime());
	}

	/**
	 * A delay from a moment that has passed (the start of the call that schedules the message).
	 * @param micros the delay in microseconds, zero or more
	 * @param sinceNanos the {@link System#nanoTime()} it counts from
	 * @return the due time
	 */
	public static DueTime in(long micros, long sinceNanos) {
		return new DueTime(true, micros, sinceNanos);
	}

	/**
	 * An absolute time.
	 * @param epochMillis the epoch milliseconds on the Redis clock
	 * @return the due time
	 */
	public static DueTime at(long epochMillis) {
		return new DueTime(false, epochMillis, 0);
	}

	/**
	 * The same due time with its delay counted from now instead (for a write held back until a transaction commits:
	 * its delay counts from the commit).
	 * @return the due time
	 */
	public DueTime countedFromNow() {
		return this.relative ? in(this.value) : this;
	}

	String kind() {
		return this.relative ? "d" : "a";
	}

	/**
	 * What a script is sent: for a delay, what is left of it at {@code nowNanos} (never below zero; the time passed is
	 * rounded down to the microsecond, so what is left is rounded up); for an absolute time, the epoch milliseconds.
	 */
	long argument(long nowNanos) {
		if (!this.relative) {
			return this.value;
		}
		long passedMicros = Math.max(0, nowNanos - this.sinceNanos) / 1_000;
		return Math.max(0, this.value - passedMicros);
	}

}
