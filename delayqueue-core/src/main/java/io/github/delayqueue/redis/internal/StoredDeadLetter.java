package io.github.delayqueue.redis.internal;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A dead letter as stored.
 *
 * @param id the message id
 * @param attempts the handler starts made
 * @param error the last error, if one was recorded
 * @param diedAt when it died, on the Redis clock
 * @param message what is stored for it
 * @since 0.1.0
 */
public record StoredDeadLetter(String id, int attempts, @Nullable String error, Instant diedAt,
		StoredMessage message) {
}
