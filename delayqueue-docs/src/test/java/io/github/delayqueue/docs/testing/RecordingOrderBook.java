package io.github.delayqueue.docs.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.docs.model.Order;
import io.github.delayqueue.docs.model.OrderBook;

import org.springframework.stereotype.Component;

/** An order book that remembers which orders it was asked to cancel. */
@Component
class RecordingOrderBook implements OrderBook {

	final List<String> cancelled = new CopyOnWriteArrayList<>();

	@Override
	public void cancelIfUnpaid(String orderId) {
		this.cancelled.add(orderId);
	}

	@Override
	public Order save(Order order) {
		return order;
	}

	@Override
	public void markPaid(String orderId) {
	}

}
