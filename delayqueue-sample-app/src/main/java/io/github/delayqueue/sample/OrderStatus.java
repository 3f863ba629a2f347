package io.github.delayqueue.sample;

/**
 * Where an order stands. {@link #PENDING_PAYMENT} moves to {@link #PAID} or {@link #CANCELLED}, never back.
 */
public enum OrderStatus {

	/** Created, waiting for payment until the payment timeout. */
	PENDING_PAYMENT,

	/** Paid in time. */
	PAID,

	/** Not paid in time. */
	CANCELLED

}
