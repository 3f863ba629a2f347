package io.github.delayqueue.listener.adapter;

import java.lang.reflect.Method;

import org.jspecify.annotations.Nullable;

import org.springframework.core.CoroutinesUtils;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * Invokes a Kotlin {@code suspend} listener function through Spring's own Kotlin support
 * ({@link CoroutinesUtils#invokeSuspendingFunction}): the result is a {@code Mono} that completes when the function
 * returns, empty for {@code Unit}, with the function's exception if it throws. The arguments are resolved as for any
 * listener method; the function's hidden {@code Continuation} parameter is resolved to {@code null} by
 * {@link ContinuationArgumentResolver} and ignored here.
 */
final class KotlinSuspendingHandlerMethod extends InvocableHandlerMethod {

	KotlinSuspendingHandlerMethod(Object bean, Method method) {
		super(bean, method);
	}

	@Override
	protected Object doInvoke(@Nullable Object... args) {
		return CoroutinesUtils.invokeSuspendingFunction(getBridgedMethod(), getBean(), args);
	}

}
