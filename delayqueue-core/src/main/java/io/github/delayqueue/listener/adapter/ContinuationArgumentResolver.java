package io.github.delayqueue.listener.adapter;

import org.jspecify.annotations.Nullable;

import org.springframework.core.MethodParameter;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;

/**
 * Resolves the hidden {@code kotlin.coroutines.Continuation} parameter of a Kotlin {@code suspend} function to
 * {@code null}: {@link KotlinSuspendingHandlerMethod} starts the coroutine, which supplies its own continuation. Named
 * by class name, so that nothing here needs Kotlin on the class path.
 */
final class ContinuationArgumentResolver implements HandlerMethodArgumentResolver {

	static final String CONTINUATION = "kotlin.coroutines.Continuation";

	@Override
	public boolean supportsParameter(MethodParameter parameter) {
		return CONTINUATION.equals(parameter.getParameterType().getName());
	}

	@Override
	public @Nullable Object resolveArgument(MethodParameter parameter, Message<?> message) {
		return null;
	}

}
