/**
 * Consuming messages: register a {@link io.github.delayqueue.listener.DelayedMessageHandler} for a topic with a
 * {@link io.github.delayqueue.listener.DelayedListenerContainer}; it claims due messages with leases, runs the
 * handler, acknowledges, retries with backoff and moves what keeps failing to the dead letters.
 */
@NullMarked
package io.github.delayqueue.listener;

import org.jspecify.annotations.NullMarked;
