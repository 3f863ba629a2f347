package io.github.delayqueue.docs.model;

import java.util.concurrent.CompletableFuture;

/** The orders of the documentation's snippets (the sample application has a real one). */
public interface OrderBook {

	/** Cancels the order unless it was paid. */
	void cancelIfUnpaid(String orderId);

	/** Cancels the order unless it was paid, without holding the calling thread. */
	default CompletableFuture<Void> cancelIfUnpaidAsync(String orderId) {
		return CompletableFuture.runAsync(() -> cancelIfUnpaid(orderId));
	}

	/** Stores a new order. */
	Order save(Order order);

	/** Marks an order paid. */
	void markPaid(String orderId);

}
