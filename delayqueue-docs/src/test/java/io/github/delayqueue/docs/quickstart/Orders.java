package io.github.delayqueue.docs.quickstart;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.docs.model.Order;
import io.github.delayqueue.docs.model.OrderTimeout;

import org.springframework.stereotype.Service;

// tag::schedule[]
@Service
class Orders {

	private final DelayedQueue queue;

	Orders(DelayedQueue queue) {
		this.queue = queue;
	}

	void created(Order order) {
		// the order id is the message id: scheduling it twice changes nothing
		queue.schedule("order-timeout", order.id(), new OrderTimeout(order.id()), Duration.ofMinutes(30));
	}

	void paid(Order order) {
		queue.cancel("order-timeout", order.id());
	}

}
// end::schedule[]
