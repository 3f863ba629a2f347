package io.github.delayqueue.docs.model;

import reactor.core.publisher.Mono;

/** Tells people what happened. */
public interface Notifications {

	void paymentDeclined(String orderId);

	/** Sends a reminder to its customer, without holding the calling thread: the Mono completes once it is sent. */
	Mono<Void> remind(Reminder reminder);

}
