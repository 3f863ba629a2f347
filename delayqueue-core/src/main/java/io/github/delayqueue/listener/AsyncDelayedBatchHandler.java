package io.github.delayqueue.listener;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.github.delayqueue.DeliveredMessage;

/**
 * A {@link DelayedBatchHandler} that does not hold a thread while its work completes: it starts the work for a batch
 * and returns a {@link CompletionStage} of it. The leases of the batch are held (and extended) until the stage
 * completes; completing normally acknowledges every message of the batch; completing exceptionally, being cancelled or
 * running past the handler timeout fails it as a blocking batch handler's exception does (a
 * {@link BatchListenerFailedException} cause names the message that failed). A batch in flight counts once against
 * {@link ListenerOptions#asyncConcurrency()}.
 *
 * @param <T> the payload type
 * @since 1.0.0
 */
@FunctionalInterface
public interface AsyncDelayedBatchHandler<T> extends DelayedBatchHandler<T> {

	/**
	 * Starts handling a batch of messages.
	 * @param payloads the payloads, in the order of {@code messages}
	 * @param messages each message's id, topic, due time, attempt and headers
	 * @return the work, completing when the batch is handled
	 * @throws Exception to have the messages retried (or dead-lettered) at once
	 */
	CompletionStage<?> handleBatchAsync(List<T> payloads, List<DeliveredMessage> messages) throws Exception;

	/**
	 * Handles a batch, waiting for the work to complete (the container never calls it: it waits for the stage
	 * without a thread).
	 * @param payloads the payloads
	 * @param messages the messages
	 * @throws Exception what the work failed with
	 */
	@Override
	default void handleBatch(List<T> payloads, List<DeliveredMessage> messages) throws Exception {
		CompletionStages.await(handleBatchAsync(payloads, messages));
	}

}
