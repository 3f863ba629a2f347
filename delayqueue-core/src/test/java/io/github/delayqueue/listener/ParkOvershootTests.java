package io.github.delayqueue.listener;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The estimate of how late a park wakes settles at a low quantile of what it observes, stays within its bounds, and
 * ignores parks that ended early.
 */
class ParkOvershootTests {

	private final ParkOvershoot overshoot = new ParkOvershoot();

	@Test
	void settlesAtTheLowerQuartileOfTheOvershoots() {
		SplittableRandom random = new SplittableRandom(42);
		long sum = 0;
		for (int i = 0; i < 20_000; i++) {
			// uniform over 60 to 160 µs: the lower quartile is 85 µs
			this.overshoot.observe(60_000 + random.nextLong(100_000));
			if (i >= 10_000) {
				sum += this.overshoot.nanos();
			}
		}

		assertThat(sum / 10_000).as("the estimate's mean once settled").isBetween(80_000L, 90_000L);
		assertThat(this.overshoot.nanos()).isBetween(60_000L, 110_000L);
	}

	@Test
	void followsAMachineThatGetsFaster() {
		for (int i = 0; i < 1_000; i++) {
			this.overshoot.observe(150_000);
		}
		assertThat(this.overshoot.nanos()).isBetween(140_000L, 160_000L);

		for (int i = 0; i < 1_000; i++) {
			this.overshoot.observe(20_000);
		}

		assertThat(this.overshoot.nanos()).isBetween(10_000L, 30_000L);
	}

	@Test
	void neverGrowsPastItsBoundNorBelowZero() {
		for (int i = 0; i < 1_000; i++) {
			this.overshoot.observe(10_000_000);
		}
		assertThat(this.overshoot.nanos()).isEqualTo(ParkOvershoot.MAX_NANOS);

		for (int i = 0; i < 1_000; i++) {
			this.overshoot.observe(0);
		}
		assertThat(this.overshoot.nanos()).as("zero, or a quarter step above it").isBetween(0L, 1_000L);
	}

	@Test
	void aParkThatEndedEarlySaysNothing() {
		for (int i = 0; i < 100; i++) {
			this.overshoot.observe(100_000);
		}
		long learned = this.overshoot.nanos();

		for (int i = 0; i < 100; i++) {
			this.overshoot.observe(-50_000);
		}

		assertThat(this.overshoot.nanos()).isEqualTo(learned);
	}

}
