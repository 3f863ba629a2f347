package io.github.delayqueue.listener;

import org.jspecify.annotations.Nullable;

/**
 * A stored message that cannot be decoded (a corrupt or unknown envelope): the default error handler sends it to
 * the dead letters with the reason.
 */
public class UnreadableMessageException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param reason why the stored bytes cannot be read
	 */
	public UnreadableMessageException(@Nullable String reason) {
		super("Unreadable stored message: " + reason);
	}

}
