package io.github.delayqueue.docs.recurring;

import java.time.Duration;

import io.github.delayqueue.recurring.RecurringSchedule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** What the recurring schedules page says of the shortest interval. */
class RecurringIntervalTests {

	@Test
	void anIntervalIsAtLeastOneHundredMillisecondsInWholeMilliseconds() {
		assertThat(RecurringSchedule.builder("fast", "ticks").every(Duration.ofMillis(100)).payloadJson("{}").build().every())
			.isEqualTo(Duration.ofMillis(100));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RecurringSchedule.builder("too-fast", "ticks").every(Duration.ofMillis(99)))
			.withMessageContaining("at least 100ms");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RecurringSchedule.builder("odd", "ticks").every(Duration.ofNanos(150_000_500)));
	}

}
