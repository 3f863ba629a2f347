package io.github.delayqueue.redis;

import java.time.Duration;

import org.springframework.util.Assert;

/**
 * How many dead letters a topic keeps, and for how long. When a message dies, the oldest dead letters beyond
 * either bound are deleted (at most a hundred per death, so the cost stays bounded).
 *
 * @param maxCount the most dead letters per topic
 * @param maxAge how long a dead letter is kept
 * @since 0.1.0
 */
public record DeadLetterPolicy(long maxCount, Duration maxAge) {

	/** The default: 10 000 dead letters per topic, kept for 14 days. */
	public static final DeadLetterPolicy DEFAULT = new DeadLetterPolicy(10_000, Duration.ofDays(14));

	/**
	 * Validates the bounds.
	 * @param maxCount the most dead letters per topic, at least 1
	 * @param maxAge how long a dead letter is kept, positive
	 */
	public DeadLetterPolicy {
		Assert.isTrue(maxCount >= 1, () -> "Dead letter max count must be at least 1, but was " + maxCount);
		Assert.isTrue(maxAge != null && !maxAge.isNegative() && !maxAge.isZero(),
				() -> "Dead letter max age must be positive, but was " + maxAge);
	}

}
