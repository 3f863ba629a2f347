package io.github.delayqueue.listener;

import java.util.concurrent.CompletionStage;

import io.github.delayqueue.DeliveredMessage;

/**
 * Handles the messages of one topic without holding a thread while the work completes: the handler starts the work
 * and returns a {@link CompletionStage} of it. The message's lease is held (and extended) until the stage completes;
 * completing normally (with any value, or none) acknowledges it; completing exceptionally, being cancelled, running
 * past the handler timeout, throwing before the stage exists or returning {@code null} retries it (or moves it to the
 * dead letters), as a blocking handler's exception does. How many such messages a listener has in flight at once is
 * bounded by {@link ListenerOptions#asyncConcurrency()}, not by its threads. On a timeout the stage is cancelled.
 * <p>
 * The stage may complete on any thread: what becomes of the message is then settled on the container's own
 * threads, never on the completing one (an event loop is not blocked by a call to Redis).
 *
 * @param <T> the payload type
 * @since 1.0.0
 */
@FunctionalInterface
public interface AsyncDelayedMessageHandler<T> extends DelayedMessageHandler<T> {

	/**
	 * Starts handling one message.
	 * @param payload the payload, read as the registration's payload type
	 * @param message the message's id, topic, due time, attempt and headers
	 * @return the work, completing when the message is handled
	 * @throws Exception to have the message retried (or dead-lettered) at once
	 */
	CompletionStage<?> handleAsync(T payload, DeliveredMessage message) throws Exception;

	/**
	 * Handles one message, waiting for the work to complete (the container never calls it: it waits for the stage
	 * without a thread).
	 * @param payload the payload
	 * @param message the message
	 * @throws Exception what the work failed with
	 */
	@Override
	default void handle(T payload, DeliveredMessage message) throws Exception {
		CompletionStages.await(handleAsync(payload, message));
	}

}
