package io.github.delayqueue.listener;

import io.github.delayqueue.DeliveredMessage;

/**
 * Handles the messages of one topic. Returning normally acknowledges the message (it is deleted); throwing
 * retries it after a backoff, and after the last attempt moves it to the dead letters with the exception.
 * A message may be delivered more than once (after a crash or an expired lease), so handlers should be
 * idempotent; {@link DeliveredMessage#attempt()} tells a redelivery.
 *
 * @param <T> the payload type
 * @since 0.1.0
 */
@FunctionalInterface
public interface DelayedMessageHandler<T> {

	/**
	 * Handles one message.
	 * @param payload the payload, read as the registration's payload type
	 * @param message the message's id, topic, due time, attempt and headers
	 * @throws Exception to have the message retried (or dead-lettered)
	 */
	void handle(T payload, DeliveredMessage message) throws Exception;

}
