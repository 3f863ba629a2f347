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
 * A topic whose meters carry a {@code group} tag has a counter and a timer per tag: the counters are added up, and the
 * timers' histograms too; where the timers have client-side percentiles only, each percentile shown is the largest of
 * the groups' (an upper bound).
 *
 * @since 1.0.0
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
		Collection<Timer> timers = this.registry.find("delayqueue.lateness").tag(TOPIC, topic).timers();
		if (timers.size() <= 1) {
			return timers.isEmpty() ? null : lateness(timers.iterator().next().takeSnapshot());
		}
		// one timer per group tag (delayqueue.topics.<topic>.metrics.groups): their histograms add up
		return lateness(merged(timers.stream().map(Timer::takeSnapshot).toList()));
	}

	/**
	 * The snapshots of a topic's timers (one per group tag) as one: their histograms added up bucket by bucket where
	 * they have the same buckets (the same timer's settings); else, percentiles cannot be added up, so each percentile
	 * is the largest of the timers' (an upper bound of the topic's: a percentile of the whole is never above every
	 * part's).
	 * @param snapshots the snapshots, at least one
	 * @return the merged snapshot
	 */
	static HistogramSnapshot merged(java.util.List<HistogramSnapshot> snapshots) {
		HistogramSnapshot first = snapshots.get(0);
		CountAtBucket[] buckets = first.histogramCounts();
		double[] counts = new double[buckets.length];
		long count = 0;
		double total = 0;
		double max = 0;
		boolean sameBuckets = buckets.length > 0;
		for (HistogramSnapshot snapshot : snapshots) {
			CountAtBucket[] other = snapshot.histogramCounts();
			sameBuckets &= other.length == buckets.length;
			for (int i = 0; sameBuckets && i < other.length; i++) {
				sameBuckets = other[i].bucket() == buckets[i].bucket();
				counts[i] += other[i].count();
			}
			count += snapshot.count();
			total += snapshot.total();
			max = Math.max(max, snapshot.max());
		}
		if (sameBuckets) {
			CountAtBucket[] sum = new CountAtBucket[buckets.length];
			for (int i = 0; i < sum.length; i++) {
				sum[i] = new CountAtBucket(buckets[i].bucket(), counts[i]);
			}
			return new HistogramSnapshot(count, total, max, new ValueAtPercentile[0], sum, null);
		}
		java.util.Map<Double, Double> highest = new java.util.TreeMap<>();
		for (HistogramSnapshot snapshot : snapshots) {
			if (snapshot.count() > 0) {
				for (ValueAtPercentile value : snapshot.percentileValues()) {
					highest.merge(value.percentile(), value.value(), Math::max);
				}
			}
		}
		ValueAtPercentile[] percentiles = highest.entrySet()
			.stream()
			.map((entry) -> new ValueAtPercentile(entry.getKey(), entry.getValue()))
			.toArray(ValueAtPercentile[]::new);
		return new HistogramSnapshot(count, total, max, percentiles, new CountAtBucket[0], null);
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
