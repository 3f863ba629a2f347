package io.github.delayqueue.docs.model;

/** The orders of the documentation's snippets (the sample application has a real one). */
public interface OrderBook {

	/** Cancels the order unless it was paid. */
	void cancelIfUnpaid(String orderId);

	/** Stores a new order. */
	Order save(Order order);

	/** Marks an order paid. */
	void markPaid(String orderId);

}
