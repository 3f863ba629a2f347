package io.github.delayqueue.docs.listeners;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.listener.BatchListenerFailedException;
import io.github.delayqueue.listener.DelayedBatchHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;

import org.springframework.jdbc.core.simple.JdbcClient;

/** The listeners page's batch listener snippets. */
class BatchListenerSnippets {

	private final JdbcClient jdbc;

	private final OrderBook orders;

	BatchListenerSnippets(JdbcClient jdbc, OrderBook orders) {
		this.jdbc = jdbc;
		this.orders = orders;
	}

	// tag::batch[]
	@DelayedListener(topic = "order-timeout", batch = "true")
	void onTimeouts(List<OrderTimeout> timeouts) {
		List<String> ids = timeouts.stream().map(OrderTimeout::orderId).toList();
		// one statement for the whole batch: returning acknowledges every message, throwing retries each
		jdbc.sql("UPDATE orders SET status = 'CANCELLED' WHERE status = 'PENDING_PAYMENT' AND id IN (:ids)")
			.param("ids", ids)
			.update();
	}
	// end::batch[]

	// tag::batch-failed[]
	@DelayedListener(topic = "order-timeout", batch = "true", batchMaxMessages = "50")
	void cancelEach(List<OrderTimeout> timeouts, List<DeliveredMessage> messages) {
		for (int i = 0; i < timeouts.size(); i++) {
			try {
				orders.cancelIfUnpaid(timeouts.get(i).orderId());
			}
			catch (RuntimeException ex) {
				// those before i are acknowledged, i is retried (ex decides how), those after it come back at once
				throw new BatchListenerFailedException("Order " + timeouts.get(i).orderId() + " failed", ex,
						messages.get(i));
			}
		}
	}
	// end::batch-failed[]

	ListenerRegistration<OrderTimeout> inCode() {
		// tag::batch-in-code[]
		// a batch listener written in code: the payloads, and their messages in the same order
		ListenerRegistration<OrderTimeout> registration = ListenerRegistration.of("order-timeout", OrderTimeout.class,
				(DelayedBatchHandler<OrderTimeout>) (timeouts, messages) -> timeouts
					.forEach((timeout) -> orders.cancelIfUnpaid(timeout.orderId())),
				ListenerOptions.builder().batchMaxMessages(50).batchMaxWait(Duration.ofMillis(20)).build());
		// end::batch-in-code[]
		return registration;
	}

}
