package io.github.delayqueue.redis.internal;

/**
 * Thrown when a stored message cannot be decoded (an unknown format version, or corrupt bytes). Such a message
 * goes to the dead letters at once, with this exception's message.
 */
class MalformedEnvelopeException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what is wrong
	 */
	MalformedEnvelopeException(String message) {
		super(message);
	}

	/**
	 * Creates the exception.
	 * @param message what is wrong
	 * @param cause the underlying failure
	 */
	MalformedEnvelopeException(String message, Throwable cause) {
		super(message, cause);
	}

}
