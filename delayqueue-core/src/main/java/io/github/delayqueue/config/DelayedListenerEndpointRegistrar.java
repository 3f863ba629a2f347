package io.github.delayqueue.config;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.Assert;
import org.springframework.validation.Validator;

/**
 * Collects listener endpoints until the {@link DelayedListenerEndpointRegistry} can take them, then registers each
 * with its container factory (the one it names, else the registrar's default, else the bean named
 * {@value DelayQueueConfigUtils#DEFAULT_CONTAINER_FACTORY_BEAN_NAME}). Endpoints registered after that start at
 * once. A {@code DelayedListenerConfigurer} receives the registrar before the endpoints are registered, to set the
 * default factory, the {@link MessageHandlerMethodFactory} or the {@link Validator} of {@code @DelayedListener}
 * methods, or to add endpoints of its own.
 *
 * @since 0.2.0
 */
public class DelayedListenerEndpointRegistrar implements BeanFactoryAware, InitializingBean {

	private final List<Pending> pending = new ArrayList<>();

	private @Nullable DelayedListenerEndpointRegistry endpointRegistry;

	private @Nullable DelayedListenerContainerFactory containerFactory;

	private String containerFactoryBeanName = DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME;

	private @Nullable BeanFactory beanFactory;

	private @Nullable MessageHandlerMethodFactory messageHandlerMethodFactory;

	private @Nullable Validator validator;

	private boolean startImmediately;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Sets the registry that takes the endpoints.
	 * @param endpointRegistry the registry
	 */
	public void setEndpointRegistry(DelayedListenerEndpointRegistry endpointRegistry) {
		this.endpointRegistry = endpointRegistry;
	}

	/**
	 * The registry that takes the endpoints.
	 * @return the registry, or {@code null} before it is set
	 */
	public @Nullable DelayedListenerEndpointRegistry getEndpointRegistry() {
		return this.endpointRegistry;
	}

	/**
	 * Sets the factory for endpoints that name none, instead of the bean named
	 * {@value DelayQueueConfigUtils#DEFAULT_CONTAINER_FACTORY_BEAN_NAME}.
	 * @param containerFactory the factory
	 */
	public void setContainerFactory(DelayedListenerContainerFactory containerFactory) {
		this.containerFactory = containerFactory;
	}

	/**
	 * Sets the name of the factory bean for endpoints that name none.
	 * @param containerFactoryBeanName the bean name
	 */
	public void setContainerFactoryBeanName(String containerFactoryBeanName) {
		Assert.hasText(containerFactoryBeanName, "Bean name must not be empty");
		this.containerFactoryBeanName = containerFactoryBeanName;
	}

	/**
	 * Sets the factory that prepares {@code @DelayedListener} methods for invocation (argument resolution,
	 * conversion, validation), instead of the default one.
	 * @param messageHandlerMethodFactory the factory
	 */
	public void setMessageHandlerMethodFactory(MessageHandlerMethodFactory messageHandlerMethodFactory) {
		this.messageHandlerMethodFactory = messageHandlerMethodFactory;
	}

	/**
	 * The factory set to prepare {@code @DelayedListener} methods.
	 * @return the factory, or {@code null} for the default
	 */
	public @Nullable MessageHandlerMethodFactory getMessageHandlerMethodFactory() {
		return this.messageHandlerMethodFactory;
	}

	/**
	 * Sets the validator of {@code @Valid} payloads for the default {@link MessageHandlerMethodFactory}. A payload
	 * that fails validation goes to the dead letters at once (retrying cannot make it valid).
	 * @param validator the validator
	 */
	public void setValidator(Validator validator) {
		this.validator = validator;
	}

	/**
	 * The validator of {@code @Valid} payloads.
	 * @return the validator, or {@code null}
	 */
	public @Nullable Validator getValidator() {
		return this.validator;
	}

	/**
	 * Registers an endpoint with the default container factory.
	 * @param endpoint the endpoint
	 */
	public void registerEndpoint(DelayedListenerEndpoint endpoint) {
		add(new Pending(endpoint, null, null));
	}

	/**
	 * Registers an endpoint with a container factory.
	 * @param endpoint the endpoint
	 * @param factory the factory
	 */
	public void registerEndpoint(DelayedListenerEndpoint endpoint, DelayedListenerContainerFactory factory) {
		Assert.notNull(factory, "Container factory must not be null");
		add(new Pending(endpoint, factory, null));
	}

	/**
	 * Registers an endpoint with the container factory bean of the given name, looked up when it is registered.
	 * @param endpoint the endpoint
	 * @param factoryBeanName the factory's bean name
	 */
	public void registerEndpoint(DelayedListenerEndpoint endpoint, String factoryBeanName) {
		Assert.hasText(factoryBeanName, "Container factory bean name must not be empty");
		add(new Pending(endpoint, null, factoryBeanName));
	}

	private void add(Pending endpoint) {
		Assert.notNull(endpoint.endpoint(), "Endpoint must not be null");
		synchronized (this.pending) {
			if (this.startImmediately) {
				register(endpoint);
			}
			else {
				this.pending.add(endpoint);
			}
		}
	}

	/** Registers the collected endpoints with the registry; those registered later start at once. */
	@Override
	public void afterPropertiesSet() {
		synchronized (this.pending) {
			for (Pending endpoint : this.pending) {
				register(endpoint);
			}
			this.pending.clear();
			this.startImmediately = true;
		}
	}

	private void register(Pending pending) {
		Assert.state(this.endpointRegistry != null, "No DelayedListenerEndpointRegistry set");
		DelayedListenerContainerFactory factory = factoryFor(pending);
		try {
			this.endpointRegistry.registerListenerContainer(pending.endpoint(), factory, this.startImmediately);
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException(
					"Could not register " + pending.endpoint() + ": " + ex.getMessage(), ex);
		}
	}

	private DelayedListenerContainerFactory factoryFor(Pending pending) {
		if (pending.factory() != null) {
			return pending.factory();
		}
		if (pending.factoryBeanName() == null && this.containerFactory != null) {
			return this.containerFactory;
		}
		String name = (pending.factoryBeanName() != null) ? pending.factoryBeanName() : this.containerFactoryBeanName;
		Assert.state(this.beanFactory != null, () -> "No bean factory to look up container factory '" + name
				+ "' for " + pending.endpoint());
		try {
			return this.beanFactory.getBean(name, DelayedListenerContainerFactory.class);
		}
		catch (BeansException ex) {
			throw new BeanInitializationException("Could not register " + pending.endpoint()
					+ ": no DelayedListenerContainerFactory bean named '" + name + "' (Spring Boot's "
					+ "auto-configuration provides '" + DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME
					+ "' when a RedisConnectionFactory exists)", ex);
		}
	}

	private record Pending(DelayedListenerEndpoint endpoint, @Nullable DelayedListenerContainerFactory factory,
			@Nullable String factoryBeanName) {
	}

}
