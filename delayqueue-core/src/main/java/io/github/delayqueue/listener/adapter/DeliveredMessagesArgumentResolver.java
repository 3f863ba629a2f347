package io.github.delayqueue.listener.adapter;

import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.messaging.handler.invocation.MethodArgumentResolutionException;

/**
 * Resolves the {@code List<DeliveredMessage>} parameter of a batch listener method: the batch's messages, from the
 * {@link DelayQueueHeaders#BATCH_MESSAGES} header of the message the method is invoked with.
 */
final class DeliveredMessagesArgumentResolver implements HandlerMethodArgumentResolver {

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return isDeliveredMessages(parameter);
	}

	@Override
	public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
		Object messages = message.getHeaders().get(DelayQueueHeaders.BATCH_MESSAGES);
		if (!(messages instanceof List<?>)) {
			throw new MethodArgumentResolutionException(message, parameter,
					"A List<DeliveredMessage> parameter is for batch listeners (@DelayedListener(batch = \"true\"))");
		}
		return messages;
	}

	/**
	 * Whether a parameter is a {@code List<DeliveredMessage>} (or a {@code Collection} or {@code Iterable} of them).
	 * @param parameter the parameter
	 * @return whether it takes a batch's messages
	 */
	static boolean isDeliveredMessages(MethodParameter parameter) {
		Class<?> type = parameter.getParameterType();
		if (!type.isAssignableFrom(List.class)) {
			return false;
		}
		return ResolvableType.forMethodParameter(parameter).as(Iterable.class).getGeneric(0)
			.resolve() == DeliveredMessage.class;
	}

}
