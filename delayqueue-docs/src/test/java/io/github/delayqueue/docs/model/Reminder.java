package io.github.delayqueue.docs.model;

/** A payload of the documentation's reminder messages. */
public record Reminder(String customer, String text) {
}
