package io.github.delayqueue.listener;

/**
 * A stored message that cannot be decoded (a corrupt or unknown envelope). It is a {@link NonRetryableException}:
 * trying again cannot help, so the default error handler sends it to the dead letters at once, with the reason.
 *
 * @since 0.2.0
 */
public final class UnreadableMessageException extends NonRetryableException {

	private static final long serialVersionUID = 1L;

	UnreadableMessageException(String reason) {
		super("Unreadable stored message: " + reason);
	}

}
