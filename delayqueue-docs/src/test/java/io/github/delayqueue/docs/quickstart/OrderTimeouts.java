package io.github.delayqueue.docs.quickstart;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.docs.model.Reminder;

import org.springframework.stereotype.Component;

// tag::listener[]
@Component
class OrderTimeouts {

	private final OrderBook orders;

	OrderTimeouts(OrderBook orders) {
		this.orders = orders;
	}

	@DelayedListener(topic = "order-timeout")
	void onTimeout(OrderTimeout timeout) {
		orders.cancelIfUnpaid(timeout.orderId());   // returning acks; throwing retries with backoff
	}

	@DelayedListener(topic = "${app.topics.reminder}", concurrency = "8", maxAttempts = "3")
	void onReminder(Reminder reminder, DeliveredMessage message) {
		// message: id, topic, dueAt (Redis clock), createdAt, attempt, headers
	}

}
// end::listener[]
