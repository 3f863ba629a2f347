package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.Map;

/**
 * A message to store: the store encodes it in its own stored format.
 *
 * @param id the message id
 * @param due when it is due
 * @param createdAt when it was scheduled, on the scheduling application's clock
 * @param headers the headers
 * @param payload the serialised payload
 */
public record NewMessage(String id, DueTime due, Instant createdAt, Map<String, String> headers, byte[] payload) {
}
