package io.github.delayqueue.dashboard.micrometer;

import java.util.Collection;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.dashboard.MeterReading;
import io.github.delayqueue.dashboard.MeterReading.Lateness;
import io.github.delayqueue.dashboard.TopicMeterReader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Reads a topic's {@code delayqueue.messages.scheduled} and {@code delayqueue.messages.delivered} counters and its
 * {@code delayqueue.lateness} timer from a {@link MeterRegistry}. The lateness percentiles are the timer's
 * client-side p50 and p99 (see {@link LatenessPercentiles}: a window of the last minutes) where it has them, else
 * they come from its percentile histogram as the registry keeps it (each the upper bound of the bucket it falls in).
 *
 * @since 0.3.0
 */
public class MicrometerTopicMeterReader implements TopicMeterReader {

	private static final String TOPIC = "topic";

	private final MeterRegistry registry;

	/**
	 * Creates a reader of a registry's meters.
	 * @param registry the registry
	 */
	public MicrometerTopicMeterReader(MeterRegistry registry) {
		Assert.notNull(registry, "MeterRegistry must not be null");
		this.registry = registry;
	}

	@Override
	public MeterReading read(String topic) {
		return new MeterReading(total("delayqueue.messages.scheduled", topic),
				total("delayqueue.messages.delivered", topic), lateness(topic));
	}

	private @Nullable Double total(String name, String topic) {
		Collection<Counter> counters = this.registry.find(name).tag(TOPIC, topic).counters();
		if (counters.isEmpty()) {
			return null;
		}
		return counters.stream().mapToDouble(Counter::count).sum();
	}

	private @Nullable Lateness lateness(String topic) {
		Timer timer = this.registry.find("delayqueue.lateness").tag(TOPIC, topic).timer();
		return (timer != null) ? lateness(timer.takeSnapshot()) : null;
	}

	/**
	 * The median and 99th percentile of a timer's snapshot: its own percentiles where it has them, else bucket upper
	 * bounds of its histogram.
	 * @param snapshot the snapshot of a timer with percentiles or a percentile histogram
	 * @return the lateness, or {@code null} if it holds nothing
	 */
	static @Nullable Lateness lateness(HistogramSnapshot snapshot) {
		Double p50 = percentileValue(snapshot, 0.5);
		Double p99 = percentileValue(snapshot, 0.99);
		if (p50 != null && p99 != null) {
			// the count of the percentiles' window is not kept: the timer's since start stands in for it
			return (snapshot.count() > 0)
					? new Lateness(p50, p99, snapshot.max(TimeUnit.MILLISECONDS), snapshot.count()) : null;
		}
		return fromHistogram(snapshot);
	}

	private static @Nullable Double percentileValue(HistogramSnapshot snapshot, double percentile) {
		for (ValueAtPercentile value : snapshot.percentileValues()) {
			if (Math.abs(value.percentile() - percentile) < 1e-9) {
				return value.value(TimeUnit.MILLISECONDS);
			}
		}
		return null;
	}

	private static @Nullable Lateness fromHistogram(HistogramSnapshot snapshot) {
		CountAtBucket[] buckets = snapshot.histogramCounts();
		if (buckets.length == 0) {
			return null;
		}
		long[] cumulative = cumulative(buckets);
		long total = cumulative[cumulative.length - 1];
		if (total == 0) {
			return null;
		}
		return new Lateness(percentile(buckets, cumulative, 0.5), percentile(buckets, cumulative, 0.99),
				snapshot.max(TimeUnit.MILLISECONDS), total);
	}

	/**
	 * Most registries count each bucket cumulatively (values at or below its bound); some count each bucket alone.
	 * Cumulative counts never decrease; counts that do are added up.
	 */
	private static long[] cumulative(CountAtBucket[] buckets) {
		long[] counts = new long[buckets.length];
		boolean cumulative = true;
		for (int i = 0; i < buckets.length; i++) {
			counts[i] = (long) buckets[i].count();
			cumulative &= (i == 0) || counts[i] >= counts[i - 1];
		}
		if (!cumulative) {
			for (int i = 1; i < counts.length; i++) {
				counts[i] += counts[i - 1];
			}
		}
		return counts;
	}

	private static double percentile(CountAtBucket[] buckets, long[] cumulative, double quantile) {
		long total = cumulative[cumulative.length - 1];
		long rank = Math.max(1, (long) Math.ceil(quantile * total));
		for (int i = 0; i < cumulative.length; i++) {
			if (cumulative[i] >= rank) {
				return buckets[i].bucket(TimeUnit.MILLISECONDS);
			}
		}
		return buckets[buckets.length - 1].bucket(TimeUnit.MILLISECONDS);
	}

}
