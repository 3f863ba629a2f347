package io.github.delayqueue.config;

import java.lang.reflect.Method;
import java.lang.reflect.Type;

import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.adapter.AsyncMethodDelayedBatchHandler;
import io.github.delayqueue.listener.adapter.AsyncMethodDelayedMessageHandler;
import io.github.delayqueue.listener.adapter.MethodDelayedBatchHandler;
import io.github.delayqueue.listener.adapter.MethodDelayedMessageHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;
import org.springframework.util.Assert;

/**
 * The endpoint of a {@code @DelayedListener} bean method: its handler invokes the method through a
 * {@link MessageHandlerMethodFactory} (argument resolution, conversion, validation), set by the registrar before
 * the container is made.
 *
 * @since 0.2.0
 */
public class MethodDelayedListenerEndpoint extends AbstractDelayedListenerEndpoint {

	private final Object bean;

	private final Method method;

	private final Type payloadType;

	private final String description;

	private @Nullable MessageHandlerMethodFactory messageHandlerMethodFactory;

	private @Nullable String errorHandlerBeanName;

	private @Nullable BeanFactory beanFactory;

	private boolean batch;

	/**
	 * Creates an endpoint.
	 * @param topic the topic
	 * @param bean the bean
	 * @param method the method to invoke (on the bean, or on its proxy's interface)
	 * @param payloadType the type payloads are read as, from the method's payload parameter
	 * @param description the bean and method, for error messages
	 */
	public MethodDelayedListenerEndpoint(String topic, Object bean, Method method, Type payloadType,
			String description) {
		super(topic);
		Assert.notNull(bean, "Bean must not be null");
		Assert.notNull(method, "Method must not be null");
		Assert.notNull(payloadType, "Payload type must not be null");
		this.bean = bean;
		this.method = method;
		this.payloadType = payloadType;
		this.description = description;
	}

	/**
	 * The bean whose method is invoked.
	 * @return the bean
	 */
	public Object getBean() {
		return this.bean;
	}

	/**
	 * The method invoked.
	 * @return the method
	 */
	public Method getMethod() {
		return this.method;
	}

	/**
	 * Sets the factory that prepares the method for invocation.
	 * @param messageHandlerMethodFactory the factory
	 */
	public void setMessageHandlerMethodFactory(MessageHandlerMethodFactory messageHandlerMethodFactory) {
		this.messageHandlerMethodFactory = messageHandlerMethodFactory;
	}

	/**
	 * Makes this the endpoint of a batch listener method, or of one taking one message per call: a batch listener's
	 * payload parameter takes a {@code List<T>} (or a {@code List<Message<T>>}), the payload type is {@code T}, and
	 * each call takes several messages (see {@link io.github.delayqueue.listener.DelayedBatchHandler}).
	 * @param batch whether each call takes several messages
	 * @since 1.0.0
	 */
	public void setBatchListener(boolean batch) {
		this.batch = batch;
	}

	/**
	 * Whether this is the endpoint of a batch listener method.
	 * @return whether each call takes several messages
	 * @since 1.0.0
	 */
	public boolean isBatchListener() {
		return this.batch;
	}

	/**
	 * Names the {@link DeliveryErrorHandler} bean to use, looked up when the registration is made.
	 * @param beanName the bean name
	 * @param beanFactory where to look it up
	 */
	public void setErrorHandlerBeanName(String beanName, BeanFactory beanFactory) {
		Assert.hasText(beanName, "Bean name must not be empty");
		this.errorHandlerBeanName = beanName;
		this.beanFactory = beanFactory;
	}

	@Override
	protected @Nullable DeliveryErrorHandler resolveErrorHandler() {
		if (this.errorHandlerBeanName == null || this.beanFactory == null) {
			return null;
		}
		return this.beanFactory.getBean(this.errorHandlerBeanName, DeliveryErrorHandler.class);
	}

	@Override
	protected Type getPayloadType() {
		return this.payloadType;
	}

	@Override
	protected DelayedMessageHandler<Object> createHandler() {
		Assert.state(this.messageHandlerMethodFactory != null,
				() -> "No MessageHandlerMethodFactory set for " + this.description);
		InvocableHandlerMethod invocable = this.messageHandlerMethodFactory.createInvocableHandlerMethod(this.bean,
				this.method);
		if (this.batch) {
			return AsyncMethodDelayedMessageHandler.isAsync(this.method)
					? new AsyncMethodDelayedBatchHandler(invocable, this.description)
					: new MethodDelayedBatchHandler(invocable, this.description);
		}
		// a method whose work completes later (a CompletableFuture, a Mono) holds its lease until then, not a thread
		return AsyncMethodDelayedMessageHandler.isAsync(this.method)
				? new AsyncMethodDelayedMessageHandler(invocable, this.description)
				: new MethodDelayedMessageHandler(invocable, this.description);
	}

	@Override
	public String toString() {
		return this.description;
	}

}
