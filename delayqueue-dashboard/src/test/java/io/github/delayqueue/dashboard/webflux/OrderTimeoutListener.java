package io.github.delayqueue.dashboard.webflux;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.dashboard.webflux.ReactiveOrders.OrderTimeout;
import reactor.core.publisher.Mono;

/** Cancels the orders whose timeout fired, in a reactive transaction of their own; acknowledged once it committed. */
class OrderTimeoutListener {

	final List<String> received = new CopyOnWriteArrayList<>();

	private final ReactiveOrders orders;

	OrderTimeoutListener(ReactiveOrders orders) {
		this.orders = orders;
	}

	@DelayedListener(topic = ReactiveOrders.TIMEOUTS)
	Mono<Void> onTimeout(OrderTimeout timeout) {
		this.received.add(timeout.orderId());
		return this.orders.cancelIfUnpaid(timeout.orderId()).then();
	}

}
