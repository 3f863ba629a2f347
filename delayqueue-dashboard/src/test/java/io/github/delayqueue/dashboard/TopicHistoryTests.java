package io.github.delayqueue.dashboard;

import java.time.Instant;

import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicStats;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class TopicHistoryTests {

	@Test
	void keepsTheNewestSamplesOldestFirst() {
		TopicHistory history = new TopicHistory(3);
		assertThat(history.latest()).isNull();
		assertThat(history.samples()).isEmpty();
		for (int i = 1; i <= 5; i++) {
			history.add(sample(i));
		}
		assertThat(history.samples()).extracting((s) -> s.stats().waiting()).containsExactly(3L, 4L, 5L);
		assertThat(history.latest().stats().waiting()).isEqualTo(5);
		assertThat(history.capacity()).isEqualTo(3);
	}

	@Test
	void aPartlyFilledRingListsWhatItHas() {
		TopicHistory history = new TopicHistory(4);
		history.add(sample(1));
		history.add(sample(2));
		assertThat(history.samples()).extracting((s) -> s.stats().waiting()).containsExactly(1L, 2L);
	}

	@Test
	void aRateNeedsTwoSamples() {
		assertThatIllegalArgumentException().isThrownBy(() -> new TopicHistory(1)).withMessageContaining("at least 2");
	}

	static TopicSample sample(long waiting) {
		return new TopicSample(Instant.ofEpochSecond(waiting), new TopicStats("t", waiting, 0, 0, 0, 0, null),
				new TopicControlState("t", false, TopicLimits.NONE), 1, MeterReading.NONE);
	}

}
