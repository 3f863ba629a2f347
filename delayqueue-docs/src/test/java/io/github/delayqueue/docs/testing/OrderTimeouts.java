package io.github.delayqueue.docs.testing;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;

import org.springframework.stereotype.Component;

/** The listener the testing page tests. */
@Component
class OrderTimeouts {

	private final OrderBook orders;

	OrderTimeouts(OrderBook orders) {
		this.orders = orders;
	}

	@DelayedListener(topic = "order-timeout")
	void onTimeout(OrderTimeout timeout) {
		this.orders.cancelIfUnpaid(timeout.orderId());
	}

}
