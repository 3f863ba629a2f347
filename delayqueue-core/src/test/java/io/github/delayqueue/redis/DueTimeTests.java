package io.github.delayqueue.redis;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A due time's script argument: a delay less the time passed since the call began, never below zero; an absolute
 * time as it is.
 */
class DueTimeTests {

	@Test
	void aDelayIsSentLessTheTimeTheCallHasTakenRoundedUpToTheMicrosecond() {
		DueTime due = DueTime.in(1_000_000, 5_000_000_000L);
		assertThat(due.argument(5_000_000_000L)).isEqualTo(1_000_000);
		assertThat(due.argument(5_000_000_000L + TimeUnit.MILLISECONDS.toNanos(300))).isEqualTo(700_000);
		assertThat(due.argument(5_000_000_000L + 1_999)).as("1.999 µs passed: 1 µs counted").isEqualTo(999_999);
	}

	@Test
	void aCallSlowerThanItsDelayMakesTheMessageDueAtOnceNeverInThePast() {
		assertThat(DueTime.in(1_000, 0).argument(TimeUnit.SECONDS.toNanos(1))).isZero();
	}

	@Test
	void aClockReadingBeforeTheStartCountsNothing() {
		assertThat(DueTime.in(1_000, 10_000_000).argument(0)).isEqualTo(1_000);
	}

	@Test
	void anAbsoluteTimeIsSentAsItIs() {
		assertThat(DueTime.at(1_700_000_000_000L).argument(Long.MAX_VALUE)).isEqualTo(1_700_000_000_000L);
		assertThat(DueTime.at(5).countedFromNow()).isEqualTo(DueTime.at(5));
	}

	@Test
	void countedFromNowKeepsTheDelayAndMovesItsStart() {
		DueTime old = DueTime.in(1_000, System.nanoTime() - TimeUnit.SECONDS.toNanos(10));
		assertThat(old.argument(System.nanoTime())).isZero();
		DueTime restarted = old.countedFromNow();
		assertThat(restarted.value()).isEqualTo(1_000);
		assertThat(restarted.argument(restarted.sinceNanos())).isEqualTo(1_000);
	}

}
