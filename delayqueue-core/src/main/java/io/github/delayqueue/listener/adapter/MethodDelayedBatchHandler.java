package io.github.delayqueue.listener.adapter;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DelayedBatchHandler;
import io.github.delayqueue.listener.NonRetryableException;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A {@link DelayedBatchHandler} that invokes a bean method with a batch: its payload parameter receives the
 * payloads, already read as the element type ({@code List<T>}), or each payload in a Spring Messaging
 * {@link Message} with its message's headers and the {@link DelayQueueHeaders} ({@code List<Message<T>>}); a
 * {@code List<DeliveredMessage>} parameter receives the messages, in the same order. Exceptions thrown by the method
 * propagate unchanged; a failure to resolve an argument cannot be cured by retrying, so it becomes a
 * {@link NonRetryableException}.
 *
 * @since 1.0.0
 */
public class MethodDelayedBatchHandler implements DelayedBatchHandler<Object> {

	private final InvocableHandlerMethod method;

	private final String description;

	private final boolean messagesAsPayload;

	/**
	 * Creates a handler.
	 * @param method the bean method, ready to invoke: one {@code List} parameter of payloads or of
	 * {@code Message}s, and optionally a {@code List<DeliveredMessage>}
	 * @param description the bean and method, for error messages; a {@code List<DeliveredMessage>} parameter needs
	 * the argument resolvers of a {@link DelayedListenerMessageHandlerMethodFactory}
	 */
	public MethodDelayedBatchHandler(InvocableHandlerMethod method, String description) {
		this.method = method;
		this.description = description;
		boolean messages = false;
		for (MethodParameter parameter : method.getMethodParameters()) {
			if (!DeliveredMessagesArgumentResolver.isDeliveredMessages(parameter)
					&& List.class.isAssignableFrom(parameter.getParameterType())) {
				Class<?> element = ResolvableType.forMethodParameter(parameter).as(List.class).getGeneric(0).resolve();
				messages = element != null && Message.class.isAssignableFrom(element);
			}
		}
		this.messagesAsPayload = messages;
	}

	@Override
	public void handleBatch(List<Object> payloads, List<DeliveredMessage> messages) throws Exception {
		invoke(payloads, messages);
	}

	@Override
	public void handle(Object payload, DeliveredMessage message) throws Exception {
		handleBatch(List.of(payload), List.of(message));
	}

	/**
	 * Invokes the method with a batch.
	 * @param payloads the payloads
	 * @param messages the messages, in the same order
	 * @return what the method returned
	 * @throws Exception what the method threw; a {@link NonRetryableException} if an argument cannot be resolved
	 */
	protected @Nullable Object invoke(List<Object> payloads, List<DeliveredMessage> messages) throws Exception {
		Object payload = this.messagesAsPayload ? messages(payloads, messages) : payloads;
		Message<Object> message = MessageBuilder.withPayload(payload)
			.setHeader(DelayQueueHeaders.TOPIC, messages.get(0).topic())
			.setHeader(DelayQueueHeaders.BATCH_MESSAGES, messages)
			.build();
		try {
			return this.method.invoke(message);
		}
		catch (MessageConversionException | MethodArgumentResolutionException ex) {
			throw new NonRetryableException("Listener " + this.description + " cannot take a batch of "
					+ messages.size() + " message(s): " + ex.getMessage(), ex);
		}
	}

	private static List<Message<Object>> messages(List<Object> payloads, List<DeliveredMessage> messages) {
		List<Message<Object>> each = new ArrayList<>(payloads.size());
		for (int i = 0; i < payloads.size(); i++) {
			each.add(MethodDelayedMessageHandler.message(payloads.get(i), messages.get(i)));
		}
		return each;
	}

	/**
	 * The bean and method, for error messages.
	 * @return the description
	 */
	protected String description() {
		return this.description;
	}

	@Override
	public String toString() {
		return this.description;
	}

}
