package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.RedisDelayedQueue;

/**
 * Customizes the auto-configured {@link RedisDelayedQueue} after the properties are applied, as Spring Boot's
 * {@code RestTemplateCustomizer} and {@code RabbitTemplateCustomizer} do: declare beans of this type, ordered with
 * {@code @Order} if several must run in order.
 *
 * @since 1.0.0
 */
@FunctionalInterface
public interface RedisDelayedQueueCustomizer {

	/**
	 * Customizes the queue.
	 * @param queue the queue to customize
	 */
	void customize(RedisDelayedQueue queue);

}
