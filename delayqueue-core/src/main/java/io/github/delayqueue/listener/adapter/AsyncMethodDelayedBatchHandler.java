package io.github.delayqueue.listener.adapter;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.AsyncDelayedBatchHandler;

import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * A batch listener bean method whose work completes later (it returns a {@code CompletionStage} or a single-value
 * reactive type such as {@code Mono}, or it is a Kotlin {@code suspend} function; see
 * {@link AsyncMethodDelayedMessageHandler}): the container holds the leases of the batch until the result completes.
 *
 * @since 1.0.0
 */
public class AsyncMethodDelayedBatchHandler extends MethodDelayedBatchHandler
		implements AsyncDelayedBatchHandler<Object> {

	private final AsyncMethodDelayedMessageHandler stages;

	/**
	 * Creates a handler.
	 * @param method the bean method, ready to invoke; it must return a type
	 * {@link AsyncMethodDelayedMessageHandler#isAsync} accepts
	 * @param description the bean and method, for error messages
	 */
	public AsyncMethodDelayedBatchHandler(InvocableHandlerMethod method, String description) {
		super(method, description);
		this.stages = new AsyncMethodDelayedMessageHandler(method, description);
	}

	@Override
	public CompletionStage<?> handleBatchAsync(List<Object> payloads, List<DeliveredMessage> messages)
			throws Exception {
		return this.stages.stage(invoke(payloads, messages), "a batch of " + messages.size() + " message(s)");
	}

	@Override
	public void handleBatch(List<Object> payloads, List<DeliveredMessage> messages) throws Exception {
		AsyncDelayedBatchHandler.super.handleBatch(payloads, messages);
	}

}
