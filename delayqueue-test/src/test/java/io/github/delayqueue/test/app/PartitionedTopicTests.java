package io.github.delayqueue.test.app;

import java.time.Duration;
import java.util.stream.IntStream;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ReceivedMessage;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Time travel on a topic split into partitions: listing merges them, each reschedule goes to its message's own.
 */
@DelayQueueTest(properties = "delayqueue.topics.reminders.partitions=4")
@Import(ReminderListeners.class)
class PartitionedTopicTests {

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayQueueTester tester;

	@Test
	void advanceReachesEveryPartition() {
		// due in 10 to 49 minutes, spread over the partitions by id
		IntStream.range(0, 40)
			.forEach((i) -> this.queue.schedule(ReminderListeners.REMINDERS, "r-" + i, new Reminder("r-" + i),
					Duration.ofMinutes(10 + i)));
		assertThat(this.tester.admin().partitions(ReminderListeners.REMINDERS)).isEqualTo(4);

		assertThat(this.tester.advance(ReminderListeners.REMINDERS, Duration.ofMinutes(30).plusSeconds(30)))
			.isEqualTo(21);
		assertThat(this.tester.awaitIdle(ReminderListeners.REMINDERS).waiting()).isEqualTo(19);
		assertThat(this.tester.received(ReminderListeners.REMINDERS)).extracting(ReceivedMessage::id)
			.containsExactlyInAnyOrderElementsOf(IntStream.rangeClosed(0, 20).mapToObj((i) -> "r-" + i).toList());

		assertThat(this.tester.advance(ReminderListeners.REMINDERS, Duration.ofHours(1))).isEqualTo(19);
		assertThat(this.tester.awaitIdle(ReminderListeners.REMINDERS).waiting()).isZero();
		assertThat(this.tester.received(ReminderListeners.REMINDERS)).hasSize(40);
	}

}
