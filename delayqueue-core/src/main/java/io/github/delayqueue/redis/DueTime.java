package io.github.delayqueue.redis;

/**
 * A due time: a delay to the microsecond, or an absolute Redis-clock time in milliseconds. A message is due once the
 * Redis clock has reached its due time: the script that stores it adds the delay to its own clock. A delay counts
 * from when the script runs ({@link #in(long)}), or from a moment on this JVM's monotonic clock, the start of the call
 * that schedules the message ({@link #in(long, long)}): then the script is sent the delay less the time that had
 * passed since that moment, so the call's own time is not added to it; a skewed application clock changes nothing.
 *
 * @param relative whether {@code value} is a delay rather than an epoch time
 * @param value the delay in microseconds, or the epoch milliseconds
 * @param sinceNanos the {@link System#nanoTime()} the delay counts from, or {@link #WHEN_SENT} to count it from when
 * the script runs (and for an absolute time)
 * @since 0.1.0
 */
public record DueTime(boolean relative, long value, long sinceNanos) {

	/** {@link #sinceNanos()} of a delay that counts from when the script runs. */
	public static final long WHEN_SENT = Long.MIN_VALUE;

	/**
	 * A due time whose delay (if it is one) counts from when the script runs.
	 * @param relative whether {@code value} is a delay rather than an epoch time
	 * @param value the delay in microseconds, or the epoch milliseconds
	 */
	public DueTime(boolean relative, long value) {
		this(relative, value, WHEN_SENT);
	}

	/**
	 * A delay from when the script runs.
	 * @param micros the delay in microseconds, zero or more
	 * @return the due time
	 */
	public static DueTime in(long micros) {
		return new DueTime(true, micros, WHEN_SENT);
	}

	/**
	 * A delay from a moment that has passed on this JVM's monotonic clock (the start of the call that schedules the
	 * message): sent later, the script gets what is left of it, so a due time made long before it is used is due
	 * at once.
	 * @param micros the delay in microseconds, zero or more
	 * @param sinceNanos the {@link System#nanoTime()} it counts from, read in this JVM
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
		return new DueTime(false, epochMillis, WHEN_SENT);
	}

	/**
	 * The same due time with its delay counted from when the script runs instead (for a write held back until a
	 * transaction commits: its delay counts from the write that follows the commit).
	 * @return the due time
	 */
	public DueTime countedFromNow() {
		return this.relative ? in(this.value) : this;
	}

}
