package io.github.delayqueue.listener;

import java.lang.reflect.Type;

import io.github.delayqueue.Topics;

import org.springframework.util.Assert;

/**
 * A handler for one topic, or for one subscription of a topic, with the type its payloads are read as and the options
 * it is consumed with.
 *
 * @param topic the topic, or a subscription's full name ({@link Topics#subscriptionName(String, String)}): it
 * receives every message of the topic, whatever the other subscriptions do
 * @param payloadType the type payloads are read as; may be generic, such as {@code List<Order>}
 * @param handler the handler
 * @param options the consumption options
 * @param <T> the payload type
 * @since 0.1.0
 */
public record ListenerRegistration<T>(String topic, Type payloadType, DelayedMessageHandler<T> handler,
		ListenerOptions options) {

	/**
	 * Validates the registration.
	 * @param topic the topic
	 * @param payloadType the payload type
	 * @param handler the handler
	 * @param options the options
	 */
	public ListenerRegistration {
		Topics.validateTopicOrSubscription(topic);
		Assert.notNull(payloadType, "Payload type must not be null");
		Assert.notNull(handler, "Handler must not be null");
		Assert.notNull(options, "Options must not be null");
	}

	/**
	 * A registration with the default options.
	 * @param topic the topic
	 * @param payloadType the payload class
	 * @param handler the handler
	 * @param <T> the payload type
	 * @return the registration
	 */
	public static <T> ListenerRegistration<T> of(String topic, Class<T> payloadType, DelayedMessageHandler<T> handler) {
		return new ListenerRegistration<>(topic, payloadType, handler, ListenerOptions.defaults());
	}

	/**
	 * A registration with the given options.
	 * @param topic the topic
	 * @param payloadType the payload class
	 * @param handler the handler
	 * @param options the options
	 * @param <T> the payload type
	 * @return the registration
	 */
	public static <T> ListenerRegistration<T> of(String topic, Class<T> payloadType, DelayedMessageHandler<T> handler,
			ListenerOptions options) {
		return new ListenerRegistration<>(topic, payloadType, handler, options);
	}

	/**
	 * This registration with other options.
	 * @param options the options
	 * @return a new registration
	 */
	public ListenerRegistration<T> withOptions(ListenerOptions options) {
		return new ListenerRegistration<>(this.topic, this.payloadType, this.handler, options);
	}

}
