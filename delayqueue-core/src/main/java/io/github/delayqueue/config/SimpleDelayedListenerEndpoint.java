package io.github.delayqueue.config;

import java.lang.reflect.Type;

import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * An endpoint for a handler written in code. Register it with the registry and a container factory; the factory's
 * default options (with Spring Boot: the {@code delayqueue.listener.*} properties and the application's
 * {@code DeliveryErrorHandler}) apply unless set here.
 *
 * <pre class="code">
 * SimpleDelayedListenerEndpoint&lt;OrderTimeout&gt; endpoint = SimpleDelayedListenerEndpoint.of("order-timeout",
 *     OrderTimeout.class, (timeout, message) -&gt; orders.cancelIfUnpaid(timeout.orderId()));
 * endpoint.setConcurrency(8);
 * registry.registerListenerContainer(endpoint, containerFactory, true);
 * </pre>
 *
 * @param <T> the payload type
 * @since 0.2.0
 */
public class SimpleDelayedListenerEndpoint<T> extends AbstractDelayedListenerEndpoint {

	private final Type payloadType;

	private final DelayedMessageHandler<T> handler;

	private final @Nullable ListenerOptions options;

	/**
	 * Creates an endpoint whose options are the factory's defaults and this endpoint's settings.
	 * @param topic the topic
	 * @param payloadType the type payloads are read as; may be generic, such as {@code List<Order>}
	 * @param handler the handler
	 */
	public SimpleDelayedListenerEndpoint(String topic, Type payloadType, DelayedMessageHandler<T> handler) {
		this(topic, payloadType, handler, null);
	}

	private SimpleDelayedListenerEndpoint(String topic, Type payloadType, DelayedMessageHandler<T> handler,
			@Nullable ListenerOptions options) {
		super(topic);
		Assert.notNull(payloadType, "Payload type must not be null");
		Assert.notNull(handler, "Handler must not be null");
		this.payloadType = payloadType;
		this.handler = handler;
		this.options = options;
	}

	/**
	 * An endpoint whose options are the factory's defaults and this endpoint's settings.
	 * @param topic the topic
	 * @param payloadType the payload class
	 * @param handler the handler
	 * @param <T> the payload type
	 * @return the endpoint
	 */
	public static <T> SimpleDelayedListenerEndpoint<T> of(String topic, Class<T> payloadType,
			DelayedMessageHandler<T> handler) {
		return new SimpleDelayedListenerEndpoint<>(topic, payloadType, handler);
	}

	/**
	 * An endpoint that runs a registration as it is: its options replace the factory's defaults entirely (the
	 * factory's default error handler included), and the option setters are refused; its id and auto-startup may
	 * still be set.
	 * @param registration the topic, payload type, handler and options
	 * @param <T> the payload type
	 * @return the endpoint
	 */
	public static <T> SimpleDelayedListenerEndpoint<T> from(ListenerRegistration<T> registration) {
		Assert.notNull(registration, "ListenerRegistration must not be null");
		return new SimpleDelayedListenerEndpoint<>(registration.topic(), registration.payloadType(),
				registration.handler(), registration.options());
	}

	@Override
	public ListenerRegistration<?> createRegistration(ListenerOptions defaults) {
		if (this.options != null) {
			return new ListenerRegistration<>(getTopic(), this.payloadType, this.handler, this.options);
		}
		return super.createRegistration(defaults);
	}

	@Override
	protected void checkOptionsSettable() {
		if (this.options != null) {
			throw new IllegalStateException("Endpoint of topic '" + getTopic()
					+ "' runs the options of its registration as they are; set them on the registration");
		}
	}

	@Override
	protected Type getPayloadType() {
		return this.payloadType;
	}

	@Override
	protected DelayedMessageHandler<T> createHandler() {
		return this.handler;
	}

	@Override
	public String toString() {
		return "listener '" + getId() + "' of topic '" + getTopic() + "' (" + this.handler + ")";
	}

}
