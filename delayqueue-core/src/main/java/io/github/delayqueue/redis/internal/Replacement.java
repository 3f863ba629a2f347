package io.github.delayqueue.redis.internal;

import io.github.delayqueue.redis.NewMessage;

/**
 * What a schedule-or-replace call did (see {@link MessageOperations#replace(String, NewMessage)}), in the order the
 * script answers.
 *
 * @since 1.0.0
 */
public enum Replacement {

	/** No message had the id: the message was scheduled. */
	SCHEDULED,

	/** A waiting message had the id: it was replaced. */
	REPLACED,

	/** The message with the id is in flight: nothing changed. */
	IN_FLIGHT,

	/** The message with the id is dead: nothing changed. */
	DEAD

}
