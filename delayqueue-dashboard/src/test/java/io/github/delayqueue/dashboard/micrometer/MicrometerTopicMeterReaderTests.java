package io.github.delayqueue.dashboard.micrometer;

import java.time.Duration;

import io.github.delayqueue.dashboard.MeterReading;
import io.github.delayqueue.dashboard.MeterReading.Lateness;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MicrometerTopicMeterReaderTests {

	private final SimpleMeterRegistry registry = registry();

	private static SimpleMeterRegistry registry() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		registry.config().meterFilter(new LatenessPercentiles());
		return registry;
	}

	private final MicrometerTopicMeterReader reader = new MicrometerTopicMeterReader(this.registry);

	@Test
	void readsTheTopicsCountersAndLatenessAsTheMonitorRegistersThem() {
		Counter.builder("delayqueue.messages.scheduled").tag("topic", "orders").register(this.registry).increment(7);
		Counter.builder("delayqueue.messages.delivered").tag("topic", "orders").register(this.registry).increment(3);
		Counter.builder("delayqueue.messages.delivered").tag("topic", "other").register(this.registry).increment(99);
		Timer lateness = Timer.builder("delayqueue.lateness")
			.tag("topic", "orders")
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(1))
			.maximumExpectedValue(Duration.ofMinutes(10))
			.register(this.registry);
		for (int i = 0; i < 98; i++) {
			lateness.record(Duration.ofMillis(2));
		}
		lateness.record(Duration.ofMillis(900));
		lateness.record(Duration.ofMillis(900));

		MeterReading reading = this.reader.read("orders");
		assertThat(reading.scheduledTotal()).isEqualTo(7.0);
		assertThat(reading.deliveredTotal()).isEqualTo(3.0);
		Lateness measured = reading.lateness();
		assertThat(measured).isNotNull();
		assertThat(measured.count()).isEqualTo(100);
		assertThat(measured.p50Millis()).isBetween(1.5, 3.0);
		assertThat(measured.p99Millis()).isBetween(800.0, 1100.0);
		assertThat(measured.maxMillis()).isEqualTo(900.0);
	}

	@Test
	void aTopicWhoseMetersCarryGroupTagsReadsAsTheSumOfItsGroups() {
		for (String group : new String[] { "acme", "other" }) {
			Counter.builder("delayqueue.messages.delivered").tag("topic", "tenants").tag("group", group)
				.register(this.registry).increment(5);
			Timer lateness = Timer.builder("delayqueue.lateness")
				.tag("topic", "tenants")
				.tag("group", group)
				.publishPercentileHistogram()
				.minimumExpectedValue(Duration.ofMillis(1))
				.maximumExpectedValue(Duration.ofMinutes(10))
				.register(this.registry);
			for (int i = 0; i < 50; i++) {
				lateness.record(Duration.ofMillis(group.equals("acme") ? 2 : 700));
			}
		}

		MeterReading reading = this.reader.read("tenants");

		assertThat(reading.deliveredTotal()).isEqualTo(10.0);
		Lateness measured = reading.lateness();
		assertThat(measured).isNotNull();
		assertThat(measured.count()).as("both groups' timers").isEqualTo(100);
		assertThat(measured.p99Millis()).isBetween(600.0, 1100.0);
		assertThat(measured.maxMillis()).isEqualTo(700.0);
	}

	@Test
	void theHistogramsOfATopicsGroupTimersAreAddedUp() {
		CountAtBucket[] fast = { new CountAtBucket(1_000_000.0, 50), new CountAtBucket(1_000_000_000.0, 50) };
		CountAtBucket[] slow = { new CountAtBucket(1_000_000.0, 0), new CountAtBucket(1_000_000_000.0, 50) };
		HistogramSnapshot merged = MicrometerTopicMeterReader.merged(java.util.List.of(
				new HistogramSnapshot(50, 5e7, 1e6, new ValueAtPercentile[0], fast, null),
				new HistogramSnapshot(50, 3.5e10, 7e8, new ValueAtPercentile[0], slow, null)));

		assertThat(merged.count()).isEqualTo(100);
		assertThat(merged.histogramCounts()).extracting(CountAtBucket::count).containsExactly(50.0, 100.0);
		Lateness lateness = MicrometerTopicMeterReader.lateness(merged);
		assertThat(lateness).isNotNull();
		assertThat(lateness.p50Millis()).isEqualTo(1.0);
		assertThat(lateness.p99Millis()).isEqualTo(1000.0);
	}

	@Test
	void aTopicWithoutMetersReadsAsNone() {
		assertThat(this.reader.read("quiet")).isEqualTo(MeterReading.NONE);
	}

	@Test
	void theFilterLeavesOtherMetersAndAnApplicationsOwnPercentilesAlone() {
		Timer other = Timer.builder("other").register(this.registry);
		assertThat(other.takeSnapshot().percentileValues()).isEmpty();
		SimpleMeterRegistry own = new SimpleMeterRegistry();
		own.config().meterFilter(new LatenessPercentiles());
		Timer lateness = Timer.builder("delayqueue.lateness").publishPercentiles(0.9).register(own);
		lateness.record(Duration.ofMillis(5));
		assertThat(lateness.takeSnapshot().percentileValues()).extracting(ValueAtPercentile::percentile)
			.containsExactly(0.9);
	}

	@Test
	void withoutPercentilesTheHistogramsBucketBoundsStandIn() {
		CountAtBucket[] cumulative = { new CountAtBucket(1_000_000.0, 10), new CountAtBucket(2_000_000.0, 90),
				new CountAtBucket(4_000_000.0, 100) };
		HistogramSnapshot snapshot = new HistogramSnapshot(100, 0, 3_500_000, new ValueAtPercentile[0], cumulative,
				null);
		Lateness lateness = MicrometerTopicMeterReader.lateness(snapshot);
		assertThat(lateness.count()).isEqualTo(100);
		assertThat(lateness.p50Millis()).isEqualTo(2.0);
		assertThat(lateness.p99Millis()).isEqualTo(4.0);
		assertThat(lateness.maxMillis()).isEqualTo(3.5);
	}

	@Test
	void bucketsCountedAloneAreAddedUp() {
		CountAtBucket[] alone = { new CountAtBucket(1_000_000.0, 10), new CountAtBucket(2_000_000.0, 80),
				new CountAtBucket(4_000_000.0, 10) };
		HistogramSnapshot snapshot = new HistogramSnapshot(100, 0, 4_000_000, new ValueAtPercentile[0], alone, null);
		Lateness lateness = MicrometerTopicMeterReader.lateness(snapshot);
		assertThat(lateness.count()).isEqualTo(100);
		assertThat(lateness.p50Millis()).isEqualTo(2.0);
		assertThat(lateness.p99Millis()).isEqualTo(4.0);
	}

	@Test
	void anEmptyHistogramHasNoLateness() {
		HistogramSnapshot empty = new HistogramSnapshot(0, 0, 0, new ValueAtPercentile[0],
				new CountAtBucket[] { new CountAtBucket(1_000_000.0, 0) }, null);
		assertThat(MicrometerTopicMeterReader.lateness(empty)).isNull();
	}

}
