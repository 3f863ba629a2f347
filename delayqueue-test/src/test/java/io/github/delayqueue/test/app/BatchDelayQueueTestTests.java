package io.github.delayqueue.test.app;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.support.DelayQueueMonitor.Outcome;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ReceivedMessage;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The slice with batch listeners: the kit records each message of a call as the container settles it, and a batch
 * listener stays a batch listener under the recorder (its calls take several messages).
 */
@DelayQueueTest(properties = "delayqueue.listener.backoff.delay=2m")
@Import(BatchListeners.class)
class BatchDelayQueueTestTests {

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayQueueTester tester;

	@Autowired
	private BatchListeners listeners;

	@Test
	void eachMessageOfANamedFailureIsRecordedAsTheContainerSettlesIt() {
		for (String id : new String[] { "first", "second", "locked", "fourth" }) {
			this.queue.schedule(BatchListeners.CLOSING, id, id, Duration.ofMinutes(30));
		}
		assertThat(this.tester.advance(BatchListeners.CLOSING, Duration.ofMinutes(30))).isEqualTo(4);
		this.tester.awaitIdle(BatchListeners.CLOSING);
		assertThat(this.listeners.largestCall()).as("under the recorder, still several messages per call")
			.isGreaterThan(1);

		// one call of four: the two before the named one acknowledged, it retried, the one after it delivered again
		assertThat(this.tester.received(BatchListeners.CLOSING))
			.extracting(ReceivedMessage::id, ReceivedMessage::attempt, ReceivedMessage::outcome)
			.contains(tuple("first", 1, Outcome.SUCCESS), tuple("second", 1, Outcome.SUCCESS),
					tuple("locked", 1, Outcome.RETRY), tuple("fourth", 1, Outcome.SUCCESS));
		assertThat(this.tester.received(BatchListeners.CLOSING)).filteredOn((call) -> call.id().equals("locked"))
			.singleElement()
			.satisfies((call) -> assertThat(call.failure()).hasMessage("locked"));

		assertThat(this.tester.advance(BatchListeners.CLOSING, Duration.ofHours(1))).isOne();
		this.tester.awaitIdle(BatchListeners.CLOSING);
		assertThat(this.tester.received(BatchListeners.CLOSING)).filteredOn((call) -> call.id().equals("locked"))
			.extracting(ReceivedMessage::attempt, ReceivedMessage::outcome)
			.containsExactly(tuple(1, Outcome.RETRY), tuple(2, Outcome.SUCCESS));
	}

	@Test
	void aBatchListenerWhoseWorkCompletesLaterIsRecordedAsItCompletes() {
		for (int i = 0; i < 6; i++) {
			this.queue.schedule(BatchListeners.ASYNC, "a-" + i, "a", Duration.ofMinutes(1));
		}
		assertThat(this.tester.advance(BatchListeners.ASYNC, Duration.ofMinutes(1))).isEqualTo(6);
		this.tester.awaitIdle(BatchListeners.ASYNC);
		assertThat(this.tester.received(BatchListeners.ASYNC)).hasSize(6)
			.allSatisfy((call) -> assertThat(call.outcome()).isEqualTo(Outcome.SUCCESS));
	}

}
