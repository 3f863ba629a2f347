package io.github.delayqueue.listener;

import io.github.delayqueue.DeliveredMessage;

/**
 * Decides what becomes of a message whose handler threw: retry it after a delay, move it to the dead letters, or
 * treat it as dealt with. It runs on the handler thread, after the handler, and may do work of its own first (send
 * the message to another topic, call a fallback, alert). The default, {@link DefaultDeliveryErrorHandler}, retries
 * with the listener's backoff until its attempts are used up, then dead-letters; failures that cannot succeed
 * (unreadable payloads, {@link NonRetryableException}, the listener's not-retryable types) go to the dead letters at
 * once.
 * <p>
 * Set one per listener with {@link ListenerOptions.Builder#errorHandler(DeliveryErrorHandler)}; with Spring Boot, a
 * single (or {@code @Primary}) {@code DeliveryErrorHandler} bean becomes the default of every {@code @DelayedListener}
 * method. If the error handler throws (or returns
 * {@code null}), the message is handled as the default handler decides. The message's lease is extended while the
 * error handler runs, so it may take its time; what it decides is carried out only if the lease is still this
 * consumer's (not handed back on shutdown meanwhile).
 *
 * <pre class="code">
 * ListenerOptions.builder()
 *     .errorHandler((message, failure, options) -&gt; {
 *         if (failure instanceof PaymentDeclinedException) {
 *             notifications.paymentDeclined(message.id());
 *             return FailureAction.acknowledge();
 *         }
 *         return DefaultDeliveryErrorHandler.INSTANCE.handle(message, failure, options);
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
	 * @param options the listener's options (max attempts, backoff, not-retryable types)
	 * @return the action; must not be {@code null} (if it is, the default handler decides)
	 */
	FailureAction handle(DeliveredMessage message, Throwable failure, ListenerOptions options);

}
