package io.github.delayqueue;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What a handler learns about the message it is handling, besides its payload.
 *
 * @param id the message id
 * @param topic the topic
 * @param dueAt when the message was due, on the Redis clock (for a retry: when the retry was due)
 * @param createdAt when the message was scheduled, on the scheduling application's clock
 * @param attempt the delivery attempt, starting at 1: failed attempts and, for a message whose consumer died or
 * stood still, the runs it made alone since, count; a run cut short by a crash it did not cause does not
 * @param headers the headers given at scheduling time
 * @param redelivered whether the message was delivered before without an outcome (its consumer died, stood still
 * past its lease, or was stopped while running it), so its handler may have run, in part or in full, already
 * @param group the message's group key (see {@link ScheduleRequest.Builder#group(String)}), or {@code null} if it has
 * none
 * @param priority the message's priority (see {@link ScheduleRequest.Builder#priority(int)}):
 * {@value MessagePriorities#DEFAULT} if it set none
 *
 * @since 0.1.0
 */
public record DeliveredMessage(String id, String topic, Instant dueAt, Instant createdAt, int attempt,
		Map<String, String> headers, boolean redelivered, @Nullable String group, int priority) {

	/**
	 * A message of the default priority as its handler sees it.
	 * @param id the message id
	 * @param topic the topic
	 * @param dueAt when the message was due, on the Redis clock
	 * @param createdAt when the message was scheduled
	 * @param attempt the delivery attempt, starting at 1
	 * @param headers the headers given at scheduling time
	 * @param redelivered whether the message was delivered before without an outcome
	 * @param group the message's group key, or {@code null} if it has none
	 */
	public DeliveredMessage(String id, String topic, Instant dueAt, Instant createdAt, int attempt,
			Map<String, String> headers, boolean redelivered, @Nullable String group) {
		this(id, topic, dueAt, createdAt, attempt, headers, redelivered, group, MessagePriorities.DEFAULT);
	}

	/**
	 * A message without a group as its handler sees it.
	 * @param id the message id
	 * @param topic the topic
	 * @param dueAt when the message was due, on the Redis clock
	 * @param createdAt when the message was scheduled
	 * @param attempt the delivery attempt, starting at 1
	 * @param headers the headers given at scheduling time
	 * @param redelivered whether the message was delivered before without an outcome
	 */
	public DeliveredMessage(String id, String topic, Instant dueAt, Instant createdAt, int attempt,
			Map<String, String> headers, boolean redelivered) {
		this(id, topic, dueAt, createdAt, attempt, headers, redelivered, null);
	}

	/**
	 * A message as its handler sees it, not delivered before without an outcome.
	 * @param id the message id
	 * @param topic the topic
	 * @param dueAt when the message was due, on the Redis clock
	 * @param createdAt when the message was scheduled
	 * @param attempt the delivery attempt, starting at 1
	 * @param headers the headers given at scheduling time
	 */
	public DeliveredMessage(String id, String topic, Instant dueAt, Instant createdAt, int attempt,
			Map<String, String> headers) {
		this(id, topic, dueAt, createdAt, attempt, headers, false, null);
	}

	/**
	 * Whether this is a redelivery: an attempt after a failed one, or a delivery after one that ended without an
	 * outcome (a handler should be idempotent for these).
	 * @return {@code attempt > 1 || redelivered}
	 */
	public boolean isRedelivery() {
		return this.attempt > 1 || this.redelivered;
	}

}
