package io.github.delayqueue.redis;

import java.time.Instant;

/**
 * A message leased to the claiming consumer.
 *
 * @param lease the lease every later call about this message presents
 * @param dueAt when it was due on the Redis clock (for a retry: when the retry was due); unchanged when the
 * message is claimed again after a lease expired
 * @param attempt the attempt number: the claim counted its handler's start
 * @param message what is stored for it
 */
public record ClaimedMessage(Lease lease, Instant dueAt, int attempt, StoredMessage message) {

	/**
	 * The message id.
	 * @return the id
	 */
	public String id() {
		return this.lease.id();
	}

}
