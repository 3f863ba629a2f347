package io.github.delayqueue.dashboard;

import java.time.Instant;

import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicStats;
import org.jspecify.annotations.Nullable;

/**
 * A topic at one sampling: its counts and controls as Redis holds them, and this instance's meter readings at that
 * moment.
 *
 * @param at when the sample was taken (this application's clock)
 * @param stats the topic's counts, every partition folded in
 * @param controls whether it is paused, and its limits
 * @param partitions how many partitions it has
 * @param meters this instance's meters of the topic, or {@link MeterReading#NONE}
 * @since 1.0.0
 */
public record TopicSample(Instant at, TopicStats stats, TopicControlState controls, int partitions,
		MeterReading meters) {

	/**
	 * The rate of this instance's scheduled messages between an earlier sample and this one.
	 * @param earlier the earlier sample
	 * @return messages per second, or {@code null} if either sample lacks the counter or no time passed
	 */
	public @Nullable Double scheduledPerSecondSince(TopicSample earlier) {
		return rate(earlier, this.meters.scheduledTotal(), earlier.meters.scheduledTotal());
	}

	/**
	 * The rate of this instance's delivered messages between an earlier sample and this one.
	 * @param earlier the earlier sample
	 * @return messages per second, or {@code null} if either sample lacks the counter or no time passed
	 */
	public @Nullable Double deliveredPerSecondSince(TopicSample earlier) {
		return rate(earlier, this.meters.deliveredTotal(), earlier.meters.deliveredTotal());
	}

	private @Nullable Double rate(TopicSample earlier, @Nullable Double now, @Nullable Double before) {
		long millis = this.at.toEpochMilli() - earlier.at.toEpochMilli();
		if (now == null || millis <= 0) {
			return null;
		}
		// a counter registered between the samples started at 0; one that went down was registered again
		double from = (before != null) ? before : 0;
		return (now >= from) ? (now - from) * 1000.0 / millis : null;
	}

}
