package io.github.delayqueue;

/**
 * Where a message is, as {@link TopicOperations#lookup(String, String)} finds it.
 *
 * @since 1.0.0
 */
public enum MessageState {

	/** Scheduled, waiting for its due time (or due and waiting for a consumer); never attempted. */
	WAITING,

	/** An attempt failed; it waits for the next one. */
	RETRYING,

	/** Leased to a consumer: its handler is running, or about to. */
	IN_FLIGHT,

	/** A dead letter: every attempt failed, it could not be read, or it expired. */
	DEAD

}
