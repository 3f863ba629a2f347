package io.github.delayqueue.redis;

/**
 * One delivery of a message: its id and the attempt number the claim gave it. Acks, lease extensions,
 * retries and hand-backs name the delivery, so one that is no longer current changes nothing.
 *
 * @param id the message id
 * @param attempt the attempt number, from 1
 */
public record Delivery(String id, int attempt) {
}
