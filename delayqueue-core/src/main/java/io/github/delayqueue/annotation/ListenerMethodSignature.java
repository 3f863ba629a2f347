package io.github.delayqueue.annotation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;

import io.github.delayqueue.DeliveredMessage;

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
 * {@code T}), returning {@code void}, not static.
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
		if (method.getReturnType() != void.class) {
			throw new IllegalArgumentException("must return void (returning acknowledges the message), but returns "
					+ method.getReturnType().getName());
		}
		Type payloadType = null;
		int payloadIndex = -1;
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			Class<?> type = parameter.getParameterType();
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

}
