package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The claim loop arms its next claim a round trip before the due time a claim returned, so that the next claim runs in
 * Redis when the message falls due; never so early that claims that find nothing due yet follow each other at once.
 */
class ClaimLoopTests {

	@Test
	void theNextClaimIsSentARoundTripBeforeTheDueTime() {
		assertThat(ClaimLoop.wakeDelayMicros(1_000_000, TimeUnit.MICROSECONDS.toNanos(250))).isEqualTo(999_750);
	}

	@Test
	void aSlowRoundTripLeadsByFiveMillisecondsAtMost() {
		assertThat(ClaimLoop.wakeDelayMicros(1_000_000, TimeUnit.MILLISECONDS.toNanos(800))).isEqualTo(995_000);
	}

	@Test
	void aDueTimeCloserThanTheRoundTripIsAimedAtHalfway() {
		assertThat(ClaimLoop.wakeDelayMicros(300, TimeUnit.MICROSECONDS.toNanos(2_000))).isEqualTo(150);
		assertThat(ClaimLoop.wakeDelayMicros(1, TimeUnit.MICROSECONDS.toNanos(2_000))).isEqualTo(1);
	}

	@Test
	void successiveEarlyClaimsConvergeOnTheDueTimeWithoutSpinning() {
		// each claim runs before the due time and returns what is left: the waits shrink, they never reach zero
		long left = 400;
		int claims = 0;
		while (left > 0 && claims < 100) {
			long wait = ClaimLoop.wakeDelayMicros(left, TimeUnit.MICROSECONDS.toNanos(1_000));
			assertThat(wait).isPositive();
			left -= wait;
			claims++;
		}
		assertThat(claims).isLessThan(12);
	}

}
