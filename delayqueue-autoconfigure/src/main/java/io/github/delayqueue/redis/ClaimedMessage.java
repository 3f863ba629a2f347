package io.github.delayqueue.redis;

import java.time.Instant;

/**
 * A message leased to the claiming consumer.
 *
 * @param lease the lease every later call about this message presents
 * @param dueAt when it was due on the Redis clock (for a retry: when the retry was due); unchanged when the
 * message is claimed again after a lease expired
 * @param attempt the attempt number if its handler start was counted by the claim, or {@code 0} if it only waits
 * in the consumer for now (see {@link RedisMessageStore#start})
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

	/**
	 * Whether the claim counted this message's attempt, so its handler may run at once.
	 * @return {@code attempt > 0}
	 */
	public boolean isStarted() {
		return this.attempt > 0;
	}

	/**
	 * This message once its start is counted.
	 * @param attempt the attempt number
	 * @return the started message
	 */
	public ClaimedMessage started(int attempt) {
		return new ClaimedMessage(this.lease, this.dueAt, attempt, this.message);
	}

}
