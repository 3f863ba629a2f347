package io.github.delayqueue.scheduling;

/**
 * A topic's wake-up under the package it had until 0.2.
 *
 * @since 0.1.0
 * @deprecated since 0.3.0 for removal in 0.4: use {@link io.github.delayqueue.wakeup.TopicTrigger}
 */
@Deprecated(since = "0.3.0", forRemoval = true)
public interface TopicTrigger extends io.github.delayqueue.wakeup.TopicTrigger {

}
