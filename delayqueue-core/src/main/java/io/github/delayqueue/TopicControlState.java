package io.github.delayqueue;

/**
 * A topic's controls as Redis keeps them, followed by every instance.
 *
 * @param topic the topic
 * @param paused whether delivery is paused
 * @param limits the rate limit and concurrency cap
 * @since 1.0.0
 */
public record TopicControlState(String topic, boolean paused, TopicLimits limits) {
}
