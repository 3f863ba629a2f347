package io.github.delayqueue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.adapter.AsyncMethodDelayedMessageHandler;

import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.messaging.Message;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.support.MessageHeaderAccessor;

/**
 * What a {@link DelayedListener} method's signature must be, and the payload type it asks for: one payload
 * parameter (the one that is not {@code DeliveredMessage}, a header or the headers; {@code Message<T>} asks for
 * {@code T}), returning {@code void} or work that completes later (a {@code CompletionStage} or a single-value
 * reactive type such as {@code Mono}, or a Kotlin {@code suspend} function, whose {@code Continuation} is no payload),
 * not static.
 */
final class ListenerMethodSignature {

	private ListenerMethodSignature() {
	}

	/**
	 * The type the method's payload parameter asks for.
	 * @throws IllegalArgumentException saying what is wrong with the signature
	 */
	static Type payloadType(Method method, Class<?> targetClass) {
		if (Modifier.isStatic(method.getModifiers())) {
			throw new IllegalArgumentException("must not be static");
		}
		if (method.getReturnType() != void.class && !completesLater(method)) {
			throw new IllegalArgumentException("must return void (returning acknowledges the message), or a "
					+ "CompletableFuture or a Mono (completing acknowledges it), but returns "
					+ method.getReturnType().getName());
		}
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		Type payloadType = null;
		int payloadIndex = -1;
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			Class<?> type = parameter.getParameterType();
			if (suspending && i == method.getParameterCount() - 1) {
				continue;    // a Kotlin suspend function's Continuation
			}
			if (type == DeliveredMessage.class || MessageHeaders.class.isAssignableFrom(type)
					|| MessageHeaderAccessor.class.isAssignableFrom(type) || parameter.hasParameterAnnotation(Header.class)
					|| parameter.hasParameterAnnotation(Headers.class)) {
				continue;
			}
			if (payloadIndex >= 0) {
				throw new IllegalArgumentException("has two payload parameters (" + (payloadIndex + 1) + " and " + (i + 1)
						+ "); a listener takes one payload, plus optionally DeliveredMessage, @Header, @Headers, "
						+ "MessageHeaders");
			}
			payloadIndex = i;
			ResolvableType resolvable = ResolvableType.forMethodParameter(method, i, targetClass);
			if (Message.class.isAssignableFrom(type)) {
				ResolvableType generic = resolvable.as(Message.class).getGeneric(0);
				payloadType = (generic.resolve() != null) ? generic.getType() : Object.class;
			}
			else {
				payloadType = resolvable.getType();
			}
		}
		return (payloadType != null) ? payloadType : Object.class;
	}

	/**
	 * What a batch listener method's signature asks for: one payload parameter, a {@code List<T>} (or a
	 * {@code List<Message<T>>}), and optionally a {@code List<DeliveredMessage>}; no per-message parameters
	 * ({@code DeliveredMessage}, headers), whose values differ from message to message.
	 * @throws IllegalArgumentException saying what is wrong with the signature
	 */
	static Batch batch(Method method, Class<?> targetClass) {
		if (Modifier.isStatic(method.getModifiers())) {
			throw new IllegalArgumentException("must not be static");
		}
		if (method.getReturnType() != void.class && !completesLater(method)) {
			throw new IllegalArgumentException("must return void (returning acknowledges the batch), or a "
					+ "CompletableFuture or a Mono (completing acknowledges it), but returns "
					+ method.getReturnType().getName());
		}
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		Batch batch = null;
		boolean withMessages = false;
		for (int i = 0; i < method.getParameterCount(); i++) {
			if (suspending && i == method.getParameterCount() - 1) {
				continue;    // a Kotlin suspend function's Continuation
			}
			MethodParameter parameter = new MethodParameter(method, i);
			Class<?> type = parameter.getParameterType();
			ResolvableType resolvable = ResolvableType.forMethodParameter(method, i, targetClass);
			ResolvableType element = resolvable.as(List.class).getGeneric(0);
			if (type != List.class || element.resolve() == null) {
				throw new IllegalArgumentException("is a batch listener (batch = \"true\"), so its parameters are a "
						+ "List of payloads (List<T> or List<Message<T>>) and optionally a List<DeliveredMessage>, but "
						+ "parameter " + (i + 1) + " is " + resolvable);
			}
			if (element.resolve() == DeliveredMessage.class) {
				if (withMessages) {
					throw new IllegalArgumentException("has two List<DeliveredMessage> parameters");
				}
				withMessages = true;
				continue;
			}
			if (batch != null) {
				throw new IllegalArgumentException("has two payload lists; a batch listener takes one List of "
						+ "payloads, plus optionally a List<DeliveredMessage>");
			}
			if (Message.class.isAssignableFrom(element.toClass())) {
				ResolvableType payload = element.as(Message.class).getGeneric(0);
				batch = new Batch((payload.resolve() != null) ? payload.getType() : Object.class);
			}
			else {
				batch = new Batch(element.getType());
			}
		}
		if (batch == null) {
			throw new IllegalArgumentException("is a batch listener (batch = \"true\") but takes no List of payloads");
		}
		return batch;
	}

	/** Whether a method has a {@code List<DeliveredMessage>} parameter (a batch listener's messages). */
	static boolean takesBatchMessages(Method method) {
		for (int i = 0; i < method.getParameterCount(); i++) {
			ResolvableType type = ResolvableType.forMethodParameter(method, i);
			if (type.toClass() == List.class && type.as(List.class).getGeneric(0).resolve() == DeliveredMessage.class) {
				return true;
			}
		}
		return false;
	}

	/**
	 * A batch listener method's payload.
	 * @param payloadType the type each payload is read as
	 */
	record Batch(Type payloadType) {
	}

	private static boolean completesLater(Method method) {
		try {
			return AsyncMethodDelayedMessageHandler.isAsync(method);
		}
		catch (IllegalStateException ex) {
			if (KotlinDetector.isSuspendingFunction(method)) {
				throw new IllegalArgumentException(ex.getMessage(), ex);
			}
			throw new IllegalArgumentException("returns " + method.getReturnType().getName() + ", which cannot be "
					+ "awaited for one message: return a CompletableFuture (or another CompletionStage) or a Mono "
					+ "(Mono<Void> for no value)", ex);
		}
	}

}
