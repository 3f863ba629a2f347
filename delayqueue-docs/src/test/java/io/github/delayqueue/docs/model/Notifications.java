package io.github.delayqueue.docs.model;

/** Tells people what happened. */
public interface Notifications {

	void paymentDeclined(String orderId);

}
