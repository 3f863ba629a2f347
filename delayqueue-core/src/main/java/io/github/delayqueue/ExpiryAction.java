package io.github.delayqueue;

import java.time.Instant;

/**
 * What becomes of a message whose expiry deadline (see {@link ScheduleRequest.Builder#expiresAt(Instant,
 * ExpiryAction)}) passes before it is delivered.
 *
 * @since 1.0.0
 */
public enum ExpiryAction {

	/** It goes to the topic's dead letters, with the deadline as the reason (the default). */
	DEAD_LETTER,

	/** It is deleted. */
	DISCARD

}
