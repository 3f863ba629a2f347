package io.github.delayqueue.listener.adapter;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.NonRetryableException;
import org.jspecify.annotations.Nullable;

import org.springframework.messaging.Message;
import org.springframework.messaging.converter.MessageConversionException;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;
import org.springframework.messaging.support.MessageBuilder;

/**
 * A {@link DelayedMessageHandler} that invokes a bean method. The payload, already read as the method's payload
 * parameter type, travels in a Spring Messaging {@link Message} with the message's headers and the
 * {@link DelayQueueHeaders}; a {@link DeliveredMessage} parameter is passed directly. Exceptions thrown by the
 * method propagate unchanged (and are retried); a failure to resolve an argument cannot be cured by retrying,
 * so it becomes a {@link NonRetryableException}.
 *
 * @since 0.1.0
 */
public class MethodDelayedMessageHandler implements DelayedMessageHandler<Object> {

	private final InvocableHandlerMethod method;

	private final String description;

	/**
	 * Creates a handler.
	 * @param method the bean method, ready to invoke
	 * @param description the bean and method, for error messages
	 */
	public MethodDelayedMessageHandler(InvocableHandlerMethod method, String description) {
		this.method = method;
		this.description = description;
	}

	@Override
	public void handle(Object payload, DeliveredMessage delivered) throws Exception {
		invoke(payload, delivered);
	}

	/**
	 * Invokes the method.
	 * @param payload the payload
	 * @param delivered the message
	 * @return what the method returned
	 * @throws Exception what the method threw; a {@link NonRetryableException} if an argument cannot be resolved
	 * @since 1.0.0
	 */
	protected @Nullable Object invoke(Object payload, DeliveredMessage delivered) throws Exception {
		Message<Object> message = message(payload, delivered);
		try {
			return this.method.invoke(message, delivered);
		}
		catch (MessageConversionException | MethodArgumentResolutionException ex) {
			throw new NonRetryableException(
					"Listener " + this.description + " cannot take message " + delivered.id() + ": " + ex.getMessage(),
					ex);
		}
	}

	/** A payload in a Spring Messaging message, with its message's headers and the {@link DelayQueueHeaders}. */
	static Message<Object> message(Object payload, DeliveredMessage delivered) {
		return MessageBuilder.withPayload(payload)
			.copyHeaders(delivered.headers())
			.setHeader(DelayQueueHeaders.MESSAGE_ID, delivered.id())
			.setHeader(DelayQueueHeaders.TOPIC, delivered.topic())
			.setHeader(DelayQueueHeaders.ATTEMPT, delivered.attempt())
			.setHeader(DelayQueueHeaders.REDELIVERED, delivered.isRedelivery())
			.setHeader(DelayQueueHeaders.DUE_AT, delivered.dueAt())
			.build();
	}

	/**
	 * The bean and method, for error messages.
	 * @return the description
	 * @since 1.0.0
	 */
	protected String description() {
		return this.description;
	}

	@Override
	public String toString() {
		return this.description;
	}

}
