package io.github.delayqueue.redis;

import java.time.Duration;

import org.springframework.dao.TransientDataAccessResourceException;

/**
 * Redis made a change, but fewer replicas than required confirmed it in time ({@code WAIT}): the change holds on
 * the master, and may be lost if the master fails over before the replicas catch up. Scheduling is idempotent, so
 * scheduling the same id again is safe; so are cancel and reschedule.
 *
 * @since 0.2.0
 */
public class NotReplicatedException extends TransientDataAccessResourceException {

	private final int required;

	private final long confirmed;

	/**
	 * Creates an exception.
	 * @param operation the operation, such as {@code schedule}
	 * @param required how many replicas had to confirm
	 * @param confirmed how many did
	 * @param timeout how long they had
	 */
	public NotReplicatedException(String operation, int required, long confirmed, Duration timeout) {
		super("Redis made the " + operation + " change, but only " + confirmed + " of " + required
				+ " replica(s) confirmed it within " + timeout + "; it may be lost if the master fails over");
		this.required = required;
		this.confirmed = confirmed;
	}

	/**
	 * How many replicas had to confirm.
	 * @return the count
	 */
	public int getRequired() {
		return this.required;
	}

	/**
	 * How many replicas confirmed.
	 * @return the count
	 */
	public long getConfirmed() {
		return this.confirmed;
	}

}
