package io.github.delayqueue.docs.model;

/** The payload of the documentation's order-timeout messages. */
public record OrderTimeout(String orderId) {
}
