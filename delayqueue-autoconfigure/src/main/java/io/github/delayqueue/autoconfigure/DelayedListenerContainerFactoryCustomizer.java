package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;

/**
 * Customizes the auto-configured {@code delayedListenerContainerFactory} after the properties are applied (its
 * default listener options, its {@code ContainerProperties}): declare beans of this type, ordered with {@code @Order}
 * if several must run in order. Only the auto-configured factory is customized; a factory you declare yourself is
 * yours to set up.
 *
 * @since 1.0.0
 */
@FunctionalInterface
public interface DelayedListenerContainerFactoryCustomizer {

	/**
	 * Customizes the factory.
	 * @param factory the factory to customize
	 */
	void customize(DefaultDelayedListenerContainerFactory factory);

}
