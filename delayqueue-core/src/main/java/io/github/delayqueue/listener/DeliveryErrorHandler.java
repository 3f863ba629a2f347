package io.github.delayqueue.listener;

import io.github.delayqueue.DeliveredMessage;

/**
 * Decides what becomes of a message whose handler threw: retry it after a delay, move it to the dead letters, or
 * treat it as dealt with. It owns its policy (its backoff, which failures are not worth retrying), as spring-kafka's
 * {@code DefaultErrorHandler} does. It runs on the handler thread, after the handler, and may do work of its own
 * first (send the message to another topic, call a fallback, alert). The default,
 * {@link DefaultDeliveryErrorHandler}, retries with its backoff and dead-letters what cannot succeed (unreadable
 * payloads, {@link NonRetryableException}, its not-retryable types).
 * <p>
 * Whatever it decides, a listener's {@link ListenerOptions#maxAttempts() max-attempts} bounds the retries: a retry
 * asked for once that many attempts have failed sends the message to the dead letters. Set one per listener with
 * {@link ListenerOptions.Builder#errorHandler(DeliveryErrorHandler)}; with Spring Boot, a single (or
 * {@code @Primary}) {@code DeliveryErrorHandler} bean becomes the default of every {@code @DelayedListener} method.
 * If the error handler throws (or returns {@code null}), the message is handled as
 * {@link DefaultDeliveryErrorHandler#INSTANCE} decides. The message's lease is extended while the error handler
 * runs, so it may take its time; what it decides is carried out only if the lease is still this consumer's (not
 * handed back on shutdown meanwhile).
 *
 * <pre class="code">
 * DefaultDeliveryErrorHandler retries = new DefaultDeliveryErrorHandler(new FixedBackOff(500, 5))
 *     .withNotRetryable(ValidationException.class);
 * ListenerOptions.builder()
 *     .errorHandler((message, failure) -&gt; {
 *         if (failure instanceof PaymentDeclinedException) {
 *             notifications.paymentDeclined(message.id());
 *             return FailureAction.acknowledge();
 *         }
 *         return retries.handle(message, failure);
 *     })
 *     .build();
 * </pre>
 *
 * @since 0.2.0
 */
@FunctionalInterface
public interface DeliveryErrorHandler {

	/**
	 * Decides what becomes of a failed delivery.
	 * @param message the message, with its attempt number (1 for the first)
	 * @param failure what the handler threw (unwrapped from reflection), or why the message could not be read
	 * @return the action; must not be {@code null} (if it is, the default handler decides)
	 * @since 1.0.0
	 */
	FailureAction handle(DeliveredMessage message, Throwable failure);

}
