package io.github.delayqueue.listener.adapter;

import java.lang.reflect.Method;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.AsyncDelayedMessageHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

/**
 * A bean method whose work completes later: it returns a {@link CompletionStage} ({@code CompletableFuture}
 * included) or a single-value reactive type ({@code Mono}, {@code Mono<Void>} included, or another type Spring's
 * {@link ReactiveAdapterRegistry} adapts). The container holds the message's lease until the result completes; a
 * {@code Mono} is subscribed to once, and a {@code Mono<Void>} that completes empty acknowledges the message.
 *
 * @since 0.3.0
 */
public class AsyncMethodDelayedMessageHandler extends MethodDelayedMessageHandler
		implements AsyncDelayedMessageHandler<Object> {

	private final @Nullable ReactiveAdapter adapter;

	/**
	 * Creates a handler.
	 * @param method the bean method, ready to invoke; it must return a type {@link #isAsync(Method)} accepts
	 * @param description the bean and method, for error messages
	 */
	public AsyncMethodDelayedMessageHandler(InvocableHandlerMethod method, String description) {
		super(method, description);
		Class<?> returnType = method.getMethod().getReturnType();
		this.adapter = CompletionStage.class.isAssignableFrom(returnType) ? null
				: ReactiveAdapterRegistry.getSharedInstance().getAdapter(returnType);
	}

	/**
	 * Whether a listener method completes later, by its declared return type; refuses a return type that would have
	 * to be awaited but cannot be (a {@link Future} that is no {@link CompletionStage}, a publisher of many values).
	 * @param method the listener method
	 * @return {@code true} for a {@link CompletionStage} or a single-value reactive type; {@code false} for any other
	 * type (the method's return value is then ignored, as before)
	 * @throws IllegalStateException if its return type cannot be awaited, saying what to return instead
	 */
	public static boolean isAsync(Method method) {
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

	@Override
	public CompletionStage<?> handleAsync(Object payload, DeliveredMessage message) throws Exception {
		Object result = invoke(payload, message);
		if (result == null) {
			throw new IllegalStateException("Listener " + description() + " returned null instead of a "
					+ ((this.adapter != null) ? "publisher" : "CompletionStage") + " for message " + message.id());
		}
		if (this.adapter == null) {
			return (CompletionStage<?>) result;
		}
		return SingleValueSubscriber.subscribe(this.adapter, result);
	}

}
