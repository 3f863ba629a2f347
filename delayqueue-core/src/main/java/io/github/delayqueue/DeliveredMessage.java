package io.github.delayqueue;

import java.time.Instant;
import java.util.Map;

/**
 * What a handler learns about the message it is handling, besides its payload.
 *
 * @param id the message id
 * @param topic the topic
 * @param dueAt when the message was due, on the Redis clock (for a retry: when the retry was due)
 * @param createdAt when the message was scheduled, on the scheduling application's clock
 * @param attempt the delivery attempt, starting at 1
 * @param headers the headers given at scheduling time
 */
public record DeliveredMessage(String id, String topic, Instant dueAt, Instant createdAt, int attempt,
		Map<String, String> headers) {

	/**
	 * Whether this is a redelivery (the attempt is after the first).
	 * @return {@code attempt > 1}
	 */
	public boolean isRedelivery() {
		return this.attempt > 1;
	}

}
