package io.github.delayqueue;

/**
 * What {@link DelayedQueue#scheduleOrReplace(ScheduleRequest)} did with a message id.
 *
 * @since 1.0.0
 */
public enum ReplaceResult {

	/** No message had the id: the message was scheduled. */
	SCHEDULED,

	/**
	 * A waiting message had the id (scheduled, or waiting for a retry): its payload, headers, due time and expiry
	 * were replaced; a retrying message keeps its attempts and last error.
	 */
	REPLACED,

	/** The message with the id is being delivered: nothing changed (its handler may be running). */
	IN_FLIGHT,

	/** The message with the id is a dead letter: nothing changed (replay or purge it first). */
	DEAD;

	/**
	 * Whether the request's message is now the one waiting.
	 * @return {@code true} for {@link #SCHEDULED} and {@link #REPLACED}
	 */
	public boolean isApplied() {
		return this == SCHEDULED || this == REPLACED;
	}

}
