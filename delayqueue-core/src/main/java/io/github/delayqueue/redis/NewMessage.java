package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.MessagePriorities;
import org.jspecify.annotations.Nullable;

/**
 * A message to store: the store encodes it in its own stored format.
 *
 * @param id the message id
 * @param due when it is due
 * @param createdAt when it was scheduled, on the scheduling application's clock
 * @param headers the headers
 * @param payload the serialised payload
 * @param expiry the deadline after which it must not be delivered, or {@code null} for none
 * @param group the group key (see {@link io.github.delayqueue.ScheduleRequest.Builder#group(String)}), or
 * {@code null} for none
 * @param priority the priority (see {@link io.github.delayqueue.ScheduleRequest.Builder#priority(int)})
 * @since 0.1.0
 */
public record NewMessage(String id, DueTime due, Instant createdAt, Map<String, String> headers, byte[] payload,
		@Nullable Expiry expiry, @Nullable String group, int priority) {

	/**
	 * A message to store with the default priority.
	 * @param id the message id
	 * @param due when it is due
	 * @param createdAt when it was scheduled
	 * @param headers the headers
	 * @param payload the serialised payload
	 * @param expiry the deadline after which it must not be delivered, or {@code null} for none
	 * @param group the group key, or {@code null} for none
	 */
	public NewMessage(String id, DueTime due, Instant createdAt, Map<String, String> headers, byte[] payload,
			@Nullable Expiry expiry, @Nullable String group) {
		this(id, due, createdAt, headers, payload, expiry, group, MessagePriorities.DEFAULT);
	}

	/**
	 * A message to store without a group.
	 * @param id the message id
	 * @param due when it is due
	 * @param createdAt when it was scheduled
	 * @param headers the headers
	 * @param payload the serialised payload
	 * @param expiry the deadline after which it must not be delivered, or {@code null} for none
	 */
	public NewMessage(String id, DueTime due, Instant createdAt, Map<String, String> headers, byte[] payload,
			@Nullable Expiry expiry) {
		this(id, due, createdAt, headers, payload, expiry, null);
	}

	/**
	 * A message to store without an expiry deadline.
	 * @param id the message id
	 * @param due when it is due
	 * @param createdAt when it was scheduled
	 * @param headers the headers
	 * @param payload the serialised payload
	 */
	public NewMessage(String id, DueTime due, Instant createdAt, Map<String, String> headers, byte[] payload) {
		this(id, due, createdAt, headers, payload, null, null);
	}

	/**
	 * The same message with its delay counted from when its script runs (for a write held back until a transaction
	 * commits).
	 * @return the message
	 */
	public NewMessage countedFromNow() {
		return new NewMessage(this.id, this.due.countedFromNow(), this.createdAt, this.headers, this.payload,
				this.expiry, this.group, this.priority);
	}

}
