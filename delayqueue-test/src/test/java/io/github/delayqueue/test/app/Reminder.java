package io.github.delayqueue.test.app;

/**
 * A payload.
 *
 * @param text what to remind of
 */
public record Reminder(String text) {
}
