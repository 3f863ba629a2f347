package io.github.delayqueue.redis;

/**
 * A message claimed for delivery, leased to the claiming consumer.
 *
 * @param id the message id
 * @param dueAtMillis when it was due, Redis-clock epoch milliseconds
 * @param attempt the attempt number, from 1
 * @param envelope the stored envelope bytes
 */
public record ClaimedMessage(String id, long dueAtMillis, int attempt, byte[] envelope) {

	/**
	 * This claim as a {@link Delivery}.
	 * @return the delivery
	 */
	public Delivery delivery() {
		return new Delivery(this.id, this.attempt);
	}

}
