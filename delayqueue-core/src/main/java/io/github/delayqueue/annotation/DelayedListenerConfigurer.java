package io.github.delayqueue.annotation;

import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;

/**
 * Implemented by beans that configure how {@link DelayedListener} methods are registered: the default container
 * factory, the {@link org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory} that
 * invokes them, the {@link org.springframework.validation.Validator} of {@code @Valid} payloads, or endpoints
 * added in code. Every such bean is called, in order, before the endpoints are registered.
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface DelayedListenerConfigurer {

	/**
	 * Configures the registrar.
	 * @param registrar the registrar
	 */
	void configureDelayedListeners(DelayedListenerEndpointRegistrar registrar);

}
