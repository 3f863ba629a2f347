package io.github.delayqueue;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * How fast and how widely a topic is delivered, across every instance: at most {@code ratePerSecond} handler starts
 * per second (a token bucket on the Redis clock that saves up at most one second's starts), and at most
 * {@code maxInFlight} messages leased at once (running, or held by a consumer for a free handler). Enforced by the
 * claims in Redis, never by a local sleep. A topic of several partitions shares each limit among its partitions.
 *
 * @param ratePerSecond the most handler starts per second, or {@code null} for no limit
 * @param maxInFlight the most messages in flight at once, or {@code null} for no cap
 * @since 1.0.0
 */
public record TopicLimits(@Nullable Double ratePerSecond, @Nullable Integer maxInFlight) {

	/** The highest rate limit accepted. */
	public static final double MAX_RATE = 1_000_000;

	/** No limit. */
	public static final TopicLimits NONE = new TopicLimits(null, null);

	/**
	 * Checks the limits.
	 * @param ratePerSecond positive and at most {@value #MAX_RATE}, or {@code null}
	 * @param maxInFlight at least 1, or {@code null}
	 */
	public TopicLimits {
		Assert.isTrue(ratePerSecond == null || (ratePerSecond > 0 && ratePerSecond <= MAX_RATE),
				() -> "Rate limit must be positive and at most " + (long) MAX_RATE + " per second, but was "
						+ ratePerSecond);
		Assert.isTrue(maxInFlight == null || maxInFlight >= 1,
				() -> "Max in flight must be at least 1, but was " + maxInFlight);
	}

	/**
	 * These limits with a rate limit.
	 * @param perSecond the most handler starts per second
	 * @return new limits
	 */
	public TopicLimits withRate(double perSecond) {
		return new TopicLimits(perSecond, this.maxInFlight);
	}

	/**
	 * These limits with a concurrency cap.
	 * @param maxInFlight the most messages in flight at once
	 * @return new limits
	 */
	public TopicLimits withMaxInFlight(int maxInFlight) {
		return new TopicLimits(this.ratePerSecond, maxInFlight);
	}

	/**
	 * Whether any limit is set.
	 * @return {@code true} if a rate or a cap is set
	 */
	public boolean isLimited() {
		return this.ratePerSecond != null || this.maxInFlight != null;
	}

}
