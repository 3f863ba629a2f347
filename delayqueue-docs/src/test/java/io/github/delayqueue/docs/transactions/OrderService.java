package io.github.delayqueue.docs.transactions;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.docs.model.Order;
import io.github.delayqueue.docs.model.Order.NewOrder;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** The transactions page's snippet. */
@Service
class OrderService {

	private final OrderBook orders;

	private final DelayedQueue queue;

	OrderService(OrderBook orders, DelayedQueue queue) {
		this.orders = orders;
		this.queue = queue;
	}

	// tag::transactions[]
	@Transactional
	public Order create(NewOrder request) {
		Order order = orders.save(Order.pending(request));
		queue.schedule(ScheduleRequest.builder("order-timeout", new OrderTimeout(order.id()))
			.id(order.id()).delay(Duration.ofMinutes(30)).build());         // stored after the commit
		return order;
	}

	@Transactional
	public void pay(String orderId) {
		orders.markPaid(orderId);
		queue.cancelAfterCommit("order-timeout", orderId);                  // cancelled after the commit
	}
	// end::transactions[]

}
