package io.github.delayqueue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A message that failed every attempt, or that could not be read, with the reason.
 *
 * @param id the message id
 * @param topic the topic
 * @param attempts the delivery attempts made
 * @param error the last error (exception class and message), if any was recorded
 * @param diedAt when it was moved to the dead letters, on the Redis clock
 * @param createdAt when it was scheduled, or {@code null} if its stored form could not be read
 * @param headers the headers given at scheduling time (empty if its stored form could not be read)
 * @param payload the payload as stored (JSON bytes), or the raw stored form if it could not be read
 * @since 0.1.0
 */
public record DeadLetter(String id, String topic, int attempts, @Nullable String error, Instant diedAt,
		@Nullable Instant createdAt, Map<String, String> headers, byte[] payload) {

	/**
	 * The payload as text (UTF-8), for display.
	 * @return the payload text
	 */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

}
