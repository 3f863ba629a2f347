package io.github.delayqueue.redis.internal;

import java.util.concurrent.TimeUnit;

import io.github.delayqueue.redis.DueTime;
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
		assertThat(StoredForms.argument(due, 5_000_000_000L)).isEqualTo(1_000_000);
		assertThat(StoredForms.argument(due, 5_000_000_000L + TimeUnit.MILLISECONDS.toNanos(300))).isEqualTo(700_000);
		assertThat(StoredForms.argument(due, 5_000_000_000L + 1_999)).as("1.999 µs passed: 1 µs counted")
			.isEqualTo(999_999);
	}

	@Test
	void aCallSlowerThanItsDelayMakesTheMessageDueAtOnceNeverInThePast() {
		assertThat(StoredForms.argument(DueTime.in(1_000, 0), TimeUnit.SECONDS.toNanos(1))).isZero();
	}

	@Test
	void aClockReadingBeforeTheStartCountsNothing() {
		assertThat(StoredForms.argument(DueTime.in(1_000, 10_000_000), 0)).isEqualTo(1_000);
	}

	@Test
	void anAbsoluteTimeIsSentAsItIs() {
		assertThat(StoredForms.argument(DueTime.at(1_700_000_000_000L), Long.MAX_VALUE)).isEqualTo(1_700_000_000_000L);
		assertThat(DueTime.at(5).countedFromNow()).isEqualTo(DueTime.at(5));
	}

	@Test
	void countedFromNowKeepsTheDelayAndCountsItFromWhenTheScriptRuns() {
		DueTime old = DueTime.in(1_000, System.nanoTime() - TimeUnit.SECONDS.toNanos(10));
		assertThat(StoredForms.argument(old, System.nanoTime())).isZero();
		DueTime restarted = old.countedFromNow();
		assertThat(restarted).isEqualTo(DueTime.in(1_000));
		assertThat(StoredForms.argument(restarted, System.nanoTime())).isEqualTo(1_000);
	}

	@Test
	void aDelayWithoutAStartCountsFromWhenTheScriptRunsHoweverLongItIsKept() {
		// as before 0.3: a due time kept in a constant is never due at once for having been made long ago
		DueTime kept = DueTime.in(5_000_000);
		assertThat(StoredForms.argument(kept, System.nanoTime() + TimeUnit.HOURS.toNanos(1))).isEqualTo(5_000_000);
		assertThat(StoredForms.argument(kept, Long.MAX_VALUE)).isEqualTo(5_000_000);
		assertThat(new DueTime(true, 7)).isEqualTo(DueTime.in(7));
	}

}
