package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.dashboard.MeterReading.Lateness;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * One topic as the dashboard shows it: the latest counts (every partition folded in), controls and this instance's
 * rates and lateness, with the trend of the counts over the samples kept.
 *
 * @param topic the topic
 * @param partitions how many partitions it has
 * @param waiting messages due later
 * @param ready messages due now, not yet claimed
 * @param inflight messages claimed by a consumer
 * @param retrying messages that failed and are not dead (counted in waiting, ready or in flight too)
 * @param dead dead letters
 * @param nextDueAt when the earliest waiting or ready message is due, or {@code null}
 * @param paused whether delivery is paused on every instance
 * @param ratePerSecond its rate limit, or {@code null}
 * @param maxInFlight its concurrency cap, or {@code null}
 * @param scheduledPerSecond messages this instance scheduled per second lately, or {@code null} if not metered
 * @param deliveredPerSecond messages this instance delivered per second lately, or {@code null} if not metered
 * @param lateness this instance's recent lateness, or {@code null} if none was recorded
 * @param trend the counts over the samples kept
 * @since 1.0.0
 */
public record TopicOverview(String topic, int partitions, long waiting, long ready, long inflight, long retrying,
		long dead, @Nullable Instant nextDueAt, boolean paused, @Nullable Double ratePerSecond,
		@Nullable Integer maxInFlight, @Nullable Double scheduledPerSecond, @Nullable Double deliveredPerSecond,
		@Nullable Lateness lateness, Trend trend) {

	/** How far back rates look (as far as the samples kept reach). */
	static final Duration RATE_WINDOW = Duration.ofMinutes(1);

	/**
	 * The overview of a topic from its samples.
	 * @param topic the topic
	 * @param samples its samples, oldest first (at least one)
	 * @return the overview
	 */
	public static TopicOverview of(String topic, List<TopicSample> samples) {
		Assert.notEmpty(samples, "A topic's overview needs a sample");
		TopicSample latest = samples.get(samples.size() - 1);
		TopicSample earlier = earliestWithin(samples, latest.at().minus(RATE_WINDOW));
		TopicStats stats = latest.stats();
		TopicLimits limits = latest.controls().limits();
		boolean hasEarlier = earlier != latest;
		return new TopicOverview(topic, latest.partitions(), stats.waiting(), stats.ready(), stats.inflight(),
				stats.retrying(), stats.dead(), stats.nextDueAt(), latest.controls().paused(), limits.ratePerSecond(),
				limits.maxInFlight(), hasEarlier ? latest.scheduledPerSecondSince(earlier) : null,
				hasEarlier ? latest.deliveredPerSecondSince(earlier) : null, latest.meters().lateness(),
				Trend.of(samples));
	}

	private static TopicSample earliestWithin(List<TopicSample> samples, Instant since) {
		for (TopicSample sample : samples) {
			if (!sample.at().isBefore(since)) {
				return sample;
			}
		}
		return samples.get(samples.size() - 1);
	}

	/**
	 * A topic's counts over the samples kept, oldest first: one value per sample in each list.
	 *
	 * @param at when each sample was taken (epoch milliseconds)
	 * @param waiting waiting messages
	 * @param ready ready messages
	 * @param inflight messages in flight
	 * @param retrying retrying messages
	 * @param dead dead letters
	 */
	public record Trend(List<Long> at, List<Long> waiting, List<Long> ready, List<Long> inflight, List<Long> retrying,
			List<Long> dead) {

		static Trend of(List<TopicSample> samples) {
			return new Trend(samples.stream().map((s) -> s.at().toEpochMilli()).toList(),
					samples.stream().map((s) -> s.stats().waiting()).toList(),
					samples.stream().map((s) -> s.stats().ready()).toList(),
					samples.stream().map((s) -> s.stats().inflight()).toList(),
					samples.stream().map((s) -> s.stats().retrying()).toList(),
					samples.stream().map((s) -> s.stats().dead()).toList());
		}

	}

}
