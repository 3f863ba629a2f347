package io.github.delayqueue.dashboard;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.dashboard.MeterReading.Lateness;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TopicOverviewTests {

	private static final Instant START = Instant.parse("2026-11-25T10:00:00Z");

	@Test
	void ratesSpanTheLastMinuteOfSamples() {
		List<TopicSample> samples = new ArrayList<>();
		// every 10 s for two minutes: 2 scheduled and 1 delivered per second
		for (int i = 0; i <= 12; i++) {
			samples.add(sample(i * 10, 20.0 * i, 10.0 * i, i));
		}
		TopicOverview overview = TopicOverview.of("t", samples);
		assertThat(overview.scheduledPerSecond()).isCloseTo(2.0, within(1e-9));
		assertThat(overview.deliveredPerSecond()).isCloseTo(1.0, within(1e-9));
		assertThat(overview.waiting()).isEqualTo(12);
		assertThat(overview.retrying()).isEqualTo(1);
		assertThat(overview.lateness()).isEqualTo(new Lateness(1, 8, 9, 100));
		assertThat(overview.trend().waiting()).hasSize(13).startsWith(0L, 1L).endsWith(12L);
		assertThat(overview.trend().at()).first().isEqualTo(START.toEpochMilli());
		assertThat(overview.paused()).isTrue();
		assertThat(overview.maxInFlight()).isEqualTo(5);
	}

	@Test
	void withoutMetersOrWithOneSampleThereIsNoRate() {
		TopicOverview single = TopicOverview.of("t", List.of(sample(0, 5.0, 5.0, 1)));
		assertThat(single.scheduledPerSecond()).isNull();
		TopicSample unmetered = new TopicSample(START.plusSeconds(10), stats(3), controls(), 2, MeterReading.NONE);
		TopicOverview overview = TopicOverview.of("t", List.of(sample(0, 5.0, 5.0, 1), unmetered));
		assertThat(overview.scheduledPerSecond()).isNull();
		assertThat(overview.deliveredPerSecond()).isNull();
		assertThat(overview.lateness()).isNull();
		assertThat(overview.partitions()).isEqualTo(2);
	}

	@Test
	void aCounterThatAppearedBetweenSamplesCountsFromZero() {
		TopicSample before = new TopicSample(START, stats(0), controls(), 1, MeterReading.NONE);
		TopicSample after = new TopicSample(START.plusSeconds(4), stats(0), controls(), 1,
				new MeterReading(8.0, null, null));
		assertThat(after.scheduledPerSecondSince(before)).isEqualTo(2.0);
		assertThat(after.deliveredPerSecondSince(before)).isNull();
	}

	private static TopicSample sample(int second, double scheduled, double delivered, long waiting) {
		return new TopicSample(START.plusSeconds(second), stats(waiting), controls(), 1,
				new MeterReading(scheduled, delivered, new Lateness(1, 8, 9, 100)));
	}

	private static TopicStats stats(long waiting) {
		return new TopicStats("t", waiting, 0, 0, 1, 0, null);
	}

	private static TopicControlState controls() {
		return new TopicControlState("t", true, TopicLimits.NONE.withMaxInFlight(5));
	}

}
