package io.github.delayqueue.redis;

/**
 * A due time: a delay from the Redis clock's now, to the microsecond, or an absolute Redis-clock time in
 * milliseconds. A message is due once the Redis clock has reached its due time: never before server time at
 * scheduling plus the delay.
 *
 * @param relative whether {@code value} is a delay rather than an epoch time
 * @param value the delay in microseconds, or the epoch milliseconds
 * @since 0.1.0
 */
public record DueTime(boolean relative, long value) {

	/**
	 * A delay from now.
	 * @param micros the delay in microseconds, zero or more
	 * @return the due time
	 */
	public static DueTime in(long micros) {
		return new DueTime(true, micros);
	}

	/**
	 * An absolute time.
	 * @param epochMillis the epoch milliseconds on the Redis clock
	 * @return the due time
	 */
	public static DueTime at(long epochMillis) {
		return new DueTime(false, epochMillis);
	}

	String kind() {
		return this.relative ? "d" : "a";
	}

}
