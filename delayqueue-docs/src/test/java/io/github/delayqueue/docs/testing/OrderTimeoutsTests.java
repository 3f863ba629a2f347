package io.github.delayqueue.docs.testing;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

// tag::test[]
@DelayQueueTest
@Import({ OrderTimeouts.class, RecordingOrderBook.class })    // the listener under test, and what it needs
class OrderTimeoutsTests {

	@Autowired DelayedQueue queue;
	@Autowired DelayQueueTester tester;
	@Autowired RecordingOrderBook orders;

	@Test
	void anOrderTimesOutAfterThirtyMinutes() {
		queue.schedule("order-timeout", "order-42", new OrderTimeout("order-42"), Duration.ofMinutes(30));

		assertThat(tester.advance("order-timeout", Duration.ofMinutes(29))).isZero();    // not yet
		assertThat(tester.advance("order-timeout", Duration.ofMinutes(30))).isOne();     // due now
		tester.awaitIdle("order-timeout");                                              // handled, outcome stored

		assertThat(tester.received("order-timeout")).singleElement().satisfies((call) -> {
			assertThat(call.payload(OrderTimeout.class)).isEqualTo(new OrderTimeout("order-42"));
			assertThat(call.outcome()).isEqualTo(DelayQueueMonitor.Outcome.SUCCESS);
		});
		assertThat(orders.cancelled).containsExactly("order-42");
	}

}
// end::test[]
