package io.github.delayqueue;

/**
 * What scheduling one message did.
 *
 * @param id the message id: the caller's, or the generated one
 * @param scheduled {@code true} if the message was stored; {@code false} if a message with this id already
 * existed in the topic, in which case nothing changed
 */
public record ScheduleResult(String id, boolean scheduled) {
}
