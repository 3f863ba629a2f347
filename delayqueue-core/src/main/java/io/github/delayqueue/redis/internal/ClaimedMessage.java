package io.github.delayqueue.redis.internal;

import java.time.Instant;

import io.github.delayqueue.redis.Expiry;
import org.jspecify.annotations.Nullable;

/**
 * A message leased to the claiming consumer.
 *
 * @param lease the lease every later call about this message presents
 * @param dueAt when it was due on the Redis clock (for a retry: when the retry was due); unchanged when the
 * message is claimed again after a lease expired
 * @param attempt the attempt number of this delivery (for a suspect, counted already by the claim; otherwise counted
 * only if it fails)
 * @param message what is stored for it
 * @param suspect whether its last lease ran out without an outcome (it may have killed its consumer); a consumer runs
 * a suspect alone
 * @param expiry the deadline after which it must not be delivered, or {@code null} if it has none
 * @since 0.1.0
 */
public record ClaimedMessage(Lease lease, Instant dueAt, int attempt, StoredMessage message, boolean suspect,
		@Nullable Expiry expiry) {

	/**
	 * A leased message without an expiry deadline.
	 * @param lease the lease every later call about this message presents
	 * @param dueAt when it was due on the Redis clock
	 * @param attempt the attempt number
	 * @param message what is stored for it
	 * @param suspect whether it is a suspect
	 */
	public ClaimedMessage(Lease lease, Instant dueAt, int attempt, StoredMessage message, boolean suspect) {
		this(lease, dueAt, attempt, message, suspect, null);
	}

	/**
	 * A leased message that is not a suspect.
	 * @param lease the lease every later call about this message presents
	 * @param dueAt when it was due on the Redis clock
	 * @param attempt the attempt number
	 * @param message what is stored for it
	 */
	public ClaimedMessage(Lease lease, Instant dueAt, int attempt, StoredMessage message) {
		this(lease, dueAt, attempt, message, false, null);
	}

	/**
	 * The message id.
	 * @return the id
	 */
	public String id() {
		return this.lease.id();
	}

}
