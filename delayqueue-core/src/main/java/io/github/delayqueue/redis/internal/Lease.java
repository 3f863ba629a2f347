package io.github.delayqueue.redis.internal;

/**
 * A consumer's hold on one claimed message: its id and the token the claim handed out. Every claim of a topic gets
 * a new token, so a call that presents a lease which is no longer current (its holder stalled past the lease and
 * the message was claimed again, perhaps after its id was reused) changes nothing.
 *
 * @param id the message id
 * @param token the lease token
 * @since 0.1.0
 */
public record Lease(String id, long token) {
}
