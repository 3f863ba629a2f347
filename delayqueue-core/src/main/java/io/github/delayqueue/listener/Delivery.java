package io.github.delayqueue.listener;

import java.time.Instant;

import io.github.delayqueue.redis.ClaimedMessage;

/**
 * A leased message on its way to a handler, with the Redis and local time of its claim (for the lateness at handler
 * start).
 *
 * @param message the leased message
 * @param claimServerTime the Redis clock when it was claimed
 * @param claimedNanos {@link System#nanoTime()} when the claim's reply came back
 */
record Delivery(ClaimedMessage message, Instant claimServerTime, long claimedNanos) {
}
