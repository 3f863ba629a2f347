package io.github.delayqueue.test.app;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;

/**
 * Two subscriptions of one topic for the kit's tests: billing handles every message; notifications fails a message's
 * first attempt.
 */
public class SubscriptionListeners {

	/** The topic both subscribe to. */
	public static final String TOPIC = "kit-order-timeout";

	@DelayedListener(topic = TOPIC, subscription = "billing")
	void release(String order) {
	}

	@DelayedListener(topic = TOPIC, subscription = "notifications")
	void email(String order, DeliveredMessage message) {
		if (message.attempt() == 1) {
			throw new IllegalStateException("mail server down");
		}
	}

}
