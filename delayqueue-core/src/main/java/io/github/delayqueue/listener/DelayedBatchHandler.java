package io.github.delayqueue.listener;

import java.util.List;

import io.github.delayqueue.DeliveredMessage;

/**
 * Handles the messages of one topic several at a time: each call takes up to
 * {@link ListenerOptions#batchMaxMessages()} messages that are due, in due order as they were claimed. Returning
 * normally acknowledges them all. Throwing a {@link BatchListenerFailedException} that names one message
 * acknowledges the messages before it, retries that one (its attempt counted, with backoff, then the dead letters)
 * and hands the ones after it back to be delivered again at once, their attempt not counted. Throwing anything else
 * retries every message of the call, each with its own attempts, backoff and dead letter. Every lease of the call is
 * kept while it runs; the handler timeout bounds the whole call.
 * <p>
 * A message whose last lease ran out without an outcome (it may have killed its consumer) comes alone, in a call of
 * its own, so that a message that kills the JVM uses up its own attempts and takes no other message down with it.
 * Messages may be delivered more than once, so handlers should be idempotent.
 * <p>
 * A batch handler is also a {@link DelayedMessageHandler}: called with one message, it handles a batch of one.
 *
 * @param <T> the payload type
 * @since 1.0.0
 */
@FunctionalInterface
public interface DelayedBatchHandler<T> extends DelayedMessageHandler<T> {

	/**
	 * Handles a batch of messages.
	 * @param payloads the payloads, read as the registration's payload type, in the order of {@code messages}
	 * @param messages each message's id, topic, due time, attempt and headers
	 * @throws Exception to have the messages retried (or dead-lettered); a {@link BatchListenerFailedException} to
	 * acknowledge those before the one it names
	 */
	void handleBatch(List<T> payloads, List<DeliveredMessage> messages) throws Exception;

	/**
	 * Handles one message as a batch of one.
	 * @param payload the payload
	 * @param message the message
	 * @throws Exception what {@link #handleBatch} threw
	 */
	@Override
	default void handle(T payload, DeliveredMessage message) throws Exception {
		handleBatch(List.of(payload), List.of(message));
	}

}
