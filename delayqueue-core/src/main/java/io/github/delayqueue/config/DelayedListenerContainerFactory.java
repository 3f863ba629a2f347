package io.github.delayqueue.config;

import io.github.delayqueue.listener.DelayedListenerContainer;

/**
 * Makes the container that runs a listener endpoint. The application's default factory is the bean named
 * {@value DelayQueueConfigUtils#DEFAULT_CONTAINER_FACTORY_BEAN_NAME}; a listener may name another with
 * {@code @DelayedListener(containerFactory = "...")}.
 *
 * @see DefaultDelayedListenerContainerFactory
 * @since 0.2.0
 */
@FunctionalInterface
public interface DelayedListenerContainerFactory {

	/**
	 * Makes a container for an endpoint; the container is not started.
	 * @param endpoint the endpoint
	 * @return the container
	 */
	DelayedListenerContainer createListenerContainer(DelayedListenerEndpoint endpoint);

}
