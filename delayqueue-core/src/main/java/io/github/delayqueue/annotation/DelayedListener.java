package io.github.delayqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method as the handler of a topic's delayed messages.
 * <p>
 * The method returns {@code void}. Returning normally acknowledges the message; throwing retries it with
 * backoff, and after the last attempt moves it to the dead letters. A method whose work completes later returns a
 * {@code CompletableFuture} (any {@code CompletionStage}) or a {@code Mono}, or is a Kotlin {@code suspend} function:
 * the message's lease is held until the result completes, which acknowledges it (or fails, which retries it). Its
 * parameters may be, in any order:
 * <ul>
 * <li>the payload: one parameter of any type Jackson can read (records, collections with their generic types,
 * {@code String}...), optionally annotated with
 * {@link org.springframework.messaging.handler.annotation.Payload @Payload}; a payload that cannot be read as this
 * type goes to the dead letters at once;</li>
 * <li>{@link io.github.delayqueue.DeliveredMessage}: the id, topic, due time, attempt and headers;</li>
 * <li>{@link org.springframework.messaging.handler.annotation.Header @Header("name")} values,
 * {@link org.springframework.messaging.handler.annotation.Headers @Headers} {@code Map<String, Object>},
 * {@link org.springframework.messaging.MessageHeaders} or a
 * {@link org.springframework.messaging.Message Message&lt;T&gt;}.</li>
 * </ul>
 * Every string attribute accepts {@code ${...}} placeholders and {@code #{...}} expressions; an empty attribute
 * takes the container factory's default (with Spring Boot, the {@code delayqueue.listener.*} properties).
 *
 * <pre class="code">
 * &#64;DelayedListener(topic = "order-timeout")
 * void onTimeout(OrderTimeout timeout) { ... }
 *
 * &#64;DelayedListener(topic = "${app.topics.reminder}", concurrency = "8", maxAttempts = "3")
 * void onReminder(Reminder reminder, DeliveredMessage message) { ... }
 * </pre>
 *
 * One application may have one listener per topic, and one per id; start-up fails for a second one. Each listener
 * runs in a container of its own, owned by the {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry}
 * (look it up there by id or topic to stop or start it).
 *
 * @see EnableDelayedListeners
 * @since 0.1.0
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayedListener {

	/**
	 * The listener's id, unique in the application (may be a placeholder); default: the topic.
	 * @return the id
	 */
	String id() default "";

	/**
	 * The topic to consume: 1 to 200 characters of {@code A-Z a-z 0-9 . _ : -}.
	 * @return the topic
	 */
	String topic();

	/**
	 * The subscription of the topic this listener consumes (may be a placeholder): 1 to 100 characters of
	 * {@code A-Z a-z 0-9 . _ -}. Every subscription of a topic receives each of its messages once, with its own
	 * leases, attempts, backoff, dead letters and controls, whoever else subscribes; its full name,
	 * {@code <topic>@<subscription>}, is what the admin operations and the metrics' {@code topic} tag
	 * take and show. Default: none, the topic's own listener (a topic with subscriptions delivers to them alone).
	 * @return the subscription's name, or empty for none
	 * @since 1.0.0
	 */
	String subscription() default "";

	/**
	 * Handlers running at once; default {@code delayqueue.listener.concurrency}.
	 * @return the concurrency, as text
	 */
	String concurrency() default "";

	/**
	 * For a method whose work completes later (it returns a {@code CompletableFuture} or a {@code Mono}, or is a
	 * Kotlin {@code suspend} function): the most messages in flight at once; default
	 * {@code delayqueue.listener.async-concurrency}.
	 * @return the bound, as text
	 * @since 1.0.0
	 */
	String asyncConcurrency() default "";

	/**
	 * Attempts before a failing message goes to the dead letters; default {@code delayqueue.listener.max-attempts}.
	 * @return the maximum attempts, as text
	 */
	String maxAttempts() default "";

	/**
	 * Lease of a claimed message, such as {@code 30s} or {@code PT30S}; default
	 * {@code delayqueue.listener.visibility-timeout}.
	 * @return the lease, as text
	 */
	String visibilityTimeout() default "";

	/**
	 * How long a handler may run before its message is attempted again (the attempt counts) and its thread
	 * interrupted, such as {@code 2m}; default {@code delayqueue.listener.handler-timeout} (unset: no limit).
	 * @return the handler timeout, as text
	 * @since 1.0.0
	 */
	String handlerTimeout() default "";

	/**
	 * Most messages the consumer holds leased at once, running and claimed ahead; default
	 * {@code delayqueue.listener.batch-size} (unset: adapts from twice the concurrency).
	 * @return the batch size, as text
	 */
	String batchSize() default "";

	/**
	 * Whether the method is a batch listener ({@code "true"}; may be a placeholder): each call takes several due
	 * messages. Its payload parameter is then a {@code List<T>} of payloads (or a {@code List<Message<T>>}, each with
	 * its headers), optionally with a {@code List<DeliveredMessage>} of their ids, due times, attempts and headers in
	 * the same order; returning acknowledges them all, throwing a
	 * {@link io.github.delayqueue.listener.BatchListenerFailedException} acknowledges those before the message it
	 * names (see {@link io.github.delayqueue.listener.DelayedBatchHandler}). Default {@code "false"}: one message per
	 * call, and a {@code List} parameter is one message's payload.
	 * @return {@code true} or {@code false}, as text
	 * @since 1.0.0
	 */
	String batch() default "";

	/**
	 * For a batch listener: the most messages one call takes; default
	 * {@code delayqueue.listener.batch-max-messages}. Set on a listener of one message per call, start-up fails.
	 * @return the maximum, as text
	 * @since 1.0.0
	 */
	String batchMaxMessages() default "";

	/**
	 * For a batch listener: how long a call waits for more messages once its first is due, such as {@code 50ms};
	 * default {@code delayqueue.listener.batch-max-wait} (zero: it takes what is ready). Set on a listener of one
	 * message per call, start-up fails.
	 * @return the wait, as text
	 * @since 1.0.0
	 */
	String batchMaxWait() default "";

	/**
	 * Whether claims lease a message shortly before it falls due, so that it starts on time ({@code true}), or leave
	 * it waiting, and cancellable, until its due time ({@code false}); default
	 * {@code delayqueue.listener.lease-ahead} (see {@link io.github.delayqueue.listener.ListenerOptions#leaseAhead()}).
	 * @return {@code true} or {@code false}, as text
	 * @since 1.0.0
	 */
	String leaseAhead() default "";

	/**
	 * Exception types, matched along the cause chain, that send a message to the dead letters without retrying,
	 * besides those of the listener's {@link io.github.delayqueue.listener.DefaultDeliveryErrorHandler}. They configure
	 * that default error handler: beside an error handler of another kind (which owns its policy) they are an error
	 * at start-up.
	 * @return the exception types
	 */
	Class<? extends Throwable>[] notRetryable() default {};

	/**
	 * The name of the {@link io.github.delayqueue.listener.DeliveryErrorHandler} bean that decides what becomes of
	 * a message whose handler threw (may be a placeholder); default: the container factory's (with Spring Boot, the
	 * application's single {@code DeliveryErrorHandler} bean), else retry with backoff, then dead letters.
	 * @return the bean name
	 */
	String errorHandler() default "";

	/**
	 * Whether the listener starts with the application ({@code "true"} or {@code "false"}; may be a placeholder);
	 * default: the container factory's ({@code delayqueue.listener.auto-startup} with Spring Boot). A listener that
	 * does not start automatically is started through the registry.
	 * @return the setting, as text
	 */
	String autoStartup() default "";

	/**
	 * The name of the {@link io.github.delayqueue.config.DelayedListenerContainerFactory} bean that makes this
	 * listener's container (may be a placeholder); default: the bean named {@code delayedListenerContainerFactory}.
	 * @return the bean name
	 */
	String containerFactory() default "";

}
