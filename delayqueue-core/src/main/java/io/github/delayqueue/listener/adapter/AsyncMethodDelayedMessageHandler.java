package io.github.delayqueue.listener.adapter;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.AsyncDelayedMessageHandler;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.ClassUtils;

/**
 * A bean method whose work completes later: it returns a {@link CompletionStage} ({@code CompletableFuture}
 * included) or a single-value reactive type ({@code Mono}, {@code Mono<Void>} included, or another type Spring's
 * {@link ReactiveAdapterRegistry} adapts), or it is a Kotlin {@code suspend} function (invoked through Spring's
 * {@code CoroutinesUtils}, see {@link DelayedListenerMessageHandlerMethodFactory}). The container holds the message's
 * lease until the result completes; a {@code Mono} is subscribed to once, and a {@code Mono<Void>} that completes
 * empty, or a {@code suspend} function that returns {@code Unit}, acknowledges the message.
 *
 * @since 1.0.0
 */
public class AsyncMethodDelayedMessageHandler extends MethodDelayedMessageHandler
		implements AsyncDelayedMessageHandler<Object> {

	private static final String COROUTINES_REACTOR = "kotlinx.coroutines.reactor.MonoKt";

	private final @Nullable ReactiveAdapter adapter;

	private final boolean suspending;

	/**
	 * Creates a handler.
	 * @param method the bean method, ready to invoke; it must return a type {@link #isAsync(Method)} accepts
	 * @param description the bean and method, for error messages
	 */
	public AsyncMethodDelayedMessageHandler(InvocableHandlerMethod method, String description) {
		super(method, description);
		this.suspending = KotlinDetector.isSuspendingFunction(method.getMethod());
		if (this.suspending && !(method instanceof KotlinSuspendingHandlerMethod)) {
			throw new IllegalStateException("Listener " + description + " is a Kotlin suspend function, but the "
					+ "MessageHandlerMethodFactory prepared it as a " + method.getClass().getName() + ", which cannot "
					+ "invoke one: set a " + DelayedListenerMessageHandlerMethodFactory.class.getName()
					+ " (or a subclass) in the DelayedListenerConfigurer");
		}
		Class<?> returnType = method.getMethod().getReturnType();
		this.adapter = (this.suspending || CompletionStage.class.isAssignableFrom(returnType)) ? null
				: ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
	}

	/**
	 * Whether a listener method completes later, by its declared return type; refuses a return type that would have
	 * to be awaited but cannot be (a {@link Future} that is no {@link CompletionStage}, a publisher of many values).
	 * @param method the listener method
	 * @return {@code true} for a {@link CompletionStage}, a single-value reactive type or a Kotlin {@code suspend}
	 * function; {@code false} for any other type (the method's return value is then ignored, as before)
	 * @throws IllegalStateException if its return type cannot be awaited, saying what to return instead, or if it is
	 * a {@code suspend} function and Kotlin's reflection or coroutines' Reactor support is missing
	 */
	public static boolean isAsync(Method method) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			checkSuspending(method);
			return true;
		}
		Class<?> returnType = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(returnType)) {
			return true;
		}
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		if (adapter != null && !adapter.isMultiValue()) {
			return true;
		}
		if (adapter != null || Future.class.isAssignableFrom(returnType)) {
			throw new IllegalStateException("Listener method " + method + " returns " + returnType.getName()
					+ ", which cannot be awaited for one message: return a CompletableFuture (or another "
					+ "CompletionStage) or a Mono (Mono<Void> for no value)");
		}
		return false;
	}

	/**
	 * A {@code suspend} function is awaited through the {@code Mono} Spring makes of it: it needs kotlin-reflect and
	 * kotlinx-coroutines-reactor, and a result that is itself awaited once (a value, {@code Unit}, or a {@code Mono},
	 * which Spring flattens); a {@code Flow} or another publisher of many values, or a future, cannot be.
	 */
	private static void checkSuspending(Method method) {
		ClassLoader classLoader = method.getDeclaringClass().getClassLoader();
		if (!KotlinDetector.isKotlinReflectPresent() || !ClassUtils.isPresent(COROUTINES_REACTOR, classLoader)) {
			throw new IllegalStateException("Listener method " + method + " is a Kotlin suspend function: it needs "
					+ "org.jetbrains.kotlin:kotlin-reflect and org.jetbrains.kotlinx:kotlinx-coroutines-reactor on the "
					+ "class path");
		}
		Class<?> returnType = new MethodParameter(method, -1).getParameterType();
		ReactiveAdapter adapter = ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
		boolean awaitable = (adapter == null) ? !Future.class.isAssignableFrom(returnType)
				&& !CompletionStage.class.isAssignableFrom(returnType)
				: !adapter.isMultiValue() && Publisher.class.isAssignableFrom(returnType);
		if (!awaitable) {
			throw new IllegalStateException("Listener method " + method + " is a suspend function returning "
					+ returnType.getName() + ", which cannot be awaited for one message: return the value itself "
					+ "(or Unit), not a Flow, a Flux or a future");
		}
	}

	@Override
	public CompletionStage<?> handleAsync(Object payload, DeliveredMessage message) throws Exception {
		return stage(invoke(payload, message), "message " + message.id());
	}

	/**
	 * The work a listener method returned, as a stage: a {@code CompletionStage} as it is, a single-value publisher
	 * (a {@code Mono}, or a suspend function's) subscribed to.
	 * @param result what the method returned
	 * @param what what it was called for, for the error message
	 * @return the work
	 */
	CompletionStage<?> stage(@Nullable Object result, String what) {
		if (result == null) {
			throw new IllegalStateException("Listener " + description() + " returned null instead of a "
					+ ((this.adapter != null) ? "publisher" : "CompletionStage") + " for " + what);
		}
		if (this.suspending) {
			return SingleValueSubscriber.subscribe((Publisher<?>) result);
		}
		if (this.adapter == null) {
			return (CompletionStage<?>) result;
		}
		return SingleValueSubscriber.subscribe(this.adapter, result);
	}

}
