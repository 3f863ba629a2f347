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
 * The slice with subscriptions: each subscription's calls are recorded under its full name, and time travel reaches
 * a subscription's own copies waiting for a retry.
 */
@DelayQueueTest(properties = "delayqueue.listener.backoff.delay=2m")
@Import(SubscriptionListeners.class)
class SubscriptionDelayQueueTestTests {

	private static final String BILLING = SubscriptionListeners.TOPIC + "@billing";

	private static final String NOTIFICATIONS = SubscriptionListeners.TOPIC + "@notifications";

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayQueueTester tester;

	@Test
	void eachSubscriptionIsRecordedOnItsOwnAndItsRetryIsBroughtForward() {
		this.queue.schedule(SubscriptionListeners.TOPIC, "order-42", "order-42", Duration.ofMinutes(30));
		assertThat(this.tester.advance(SubscriptionListeners.TOPIC, Duration.ofMinutes(30))).isOne();
		// the topic is idle once its subscriptions are
		this.tester.awaitIdle(SubscriptionListeners.TOPIC);
		assertThat(this.tester.received(BILLING)).extracting(ReceivedMessage::id, ReceivedMessage::outcome)
			.containsExactly(tuple("order-42", Outcome.SUCCESS));
		assertThat(this.tester.received(NOTIFICATIONS)).extracting(ReceivedMessage::attempt, ReceivedMessage::outcome)
			.containsExactly(tuple(1, Outcome.RETRY));

		// the retry waits two minutes in the subscription: advancing every known topic brings it forward
		assertThat(this.tester.advanceAll(Duration.ofMinutes(5))).isOne();
		this.tester.awaitIdle(NOTIFICATIONS);
		assertThat(this.tester.received(NOTIFICATIONS)).extracting(ReceivedMessage::attempt, ReceivedMessage::outcome)
			.containsExactly(tuple(1, Outcome.RETRY), tuple(2, Outcome.SUCCESS));
		assertThat(this.tester.received(BILLING)).hasSize(1);
	}

}
