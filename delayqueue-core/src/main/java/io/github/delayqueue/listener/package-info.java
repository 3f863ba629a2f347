/**
 * Consuming messages: a {@link io.github.delayqueue.listener.DelayedListenerContainer} runs one listener (a
 * {@link io.github.delayqueue.listener.DelayedMessageHandler} for a topic, with its
 * {@link io.github.delayqueue.listener.ListenerOptions}); it claims due messages with leases, runs the handler,
 * acknowledges, and hands failures to the listener's {@link io.github.delayqueue.listener.DeliveryErrorHandler}
 * (retry with backoff, dead letters). Containers are made and owned by the classes of
 * {@code io.github.delayqueue.config}.
 */
@NullMarked
package io.github.delayqueue.listener;

import org.jspecify.annotations.NullMarked;
