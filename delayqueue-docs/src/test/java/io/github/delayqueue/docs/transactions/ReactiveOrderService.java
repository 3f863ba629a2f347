package io.github.delayqueue.docs.transactions;

import java.time.Duration;

import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.docs.model.OrderTimeout;
import reactor.core.publisher.Mono;

import org.springframework.transaction.reactive.TransactionalOperator;

/** The transactions page's snippet of a reactive transaction. */
class ReactiveOrderService {

	private final ReactiveOrders orders;

	private final ReactiveDelayedQueue queue;

	private final TransactionalOperator transactional;

	ReactiveOrderService(ReactiveOrders orders, ReactiveDelayedQueue queue, TransactionalOperator transactional) {
		this.orders = orders;
		this.queue = queue;
		this.transactional = transactional;
	}

	// tag::reactive-transactions[]
	public Mono<Void> create(String orderId) {
		return orders.insert(orderId)
			.then(queue.schedule(ScheduleRequest.builder("order-timeout", new OrderTimeout(orderId))
				.id(orderId).delay(Duration.ofMinutes(30)).build()))       // stored after the commit
			.then()
			.as(transactional::transactional);
	}

	public Mono<Void> pay(String orderId) {
		return orders.markPaid(orderId)
			.then(queue.cancelAfterCommit("order-timeout", orderId))        // cancelled after the commit
			.then()
			.as(transactional::transactional);
	}
	// end::reactive-transactions[]

	/** An R2DBC repository of orders, say. */
	interface ReactiveOrders {

		Mono<Void> insert(String orderId);

		Mono<Void> markPaid(String orderId);

	}

}
