package io.github.delayqueue.dashboard;

import org.jspecify.annotations.Nullable;

/**
 * What this application instance's meters say about a topic at one moment: totals since the meters were registered
 * and the recent lateness. Meters count this instance only: the counts of a topic (from Redis) cover every instance.
 *
 * @param scheduledTotal messages stored by this instance's schedule calls so far, or {@code null} if not metered
 * @param deliveredTotal messages whose handler returned normally on this instance so far, or {@code null}
 * @param lateness the recent lateness of this instance's deliveries, or {@code null} if none was recorded
 * @since 1.0.0
 */
public record MeterReading(@Nullable Double scheduledTotal, @Nullable Double deliveredTotal,
		@Nullable Lateness lateness) {

	/** No meters: the application has no meter registry, or the topic was never metered here. */
	public static final MeterReading NONE = new MeterReading(null, null, null);

	/**
	 * Handler start minus due time on this instance, over the last minutes (Micrometer's moving window).
	 *
	 * @param p50Millis the median, in milliseconds
	 * @param p99Millis the 99th percentile, in milliseconds
	 * @param maxMillis the largest recorded lately
	 * @param count how many deliveries were measured (since start where the registry does not say)
	 */
	public record Lateness(double p50Millis, double p99Millis, double maxMillis, long count) {
	}

}
