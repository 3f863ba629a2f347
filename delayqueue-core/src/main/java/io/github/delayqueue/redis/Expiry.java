package io.github.delayqueue.redis;

import java.time.Instant;

/**
 * A message's expiry deadline as the store keeps it: a time on the Redis clock after which the message is not
 * delivered, and whether it is then dead-lettered or dropped.
 *
 * @param deadline the deadline, to the millisecond (a fraction rounds down: never delivered after it)
 * @param discard {@code true} to drop it, {@code false} to move it to the dead letters
 * @since 1.0.0
 */
public record Expiry(Instant deadline, boolean discard) {

	/**
	 * Whether the deadline has passed at a time.
	 * @param now the time, on the Redis clock
	 * @return {@code true} if the message must not be delivered at that time
	 */
	public boolean isPassed(Instant now) {
		return !now.isBefore(this.deadline);
	}

}
