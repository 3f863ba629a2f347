package io.github.delayqueue.listener;

/**
 * Thrown by a handler to send a message straight to the dead letters: the failure cannot be cured by trying
 * again (a business rule rejects it, say). Other exceptions can be declared non-retryable too, with
 * {@link DefaultDeliveryErrorHandler#withNotRetryable(Class[])}.
 *
 * @since 0.1.0
 */
public class NonRetryableException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message why the message cannot be handled
	 */
	public NonRetryableException(String message) {
		super(message);
	}

	/**
	 * Creates the exception.
	 * @param message why the message cannot be handled
	 * @param cause the underlying failure
	 */
	public NonRetryableException(String message, Throwable cause) {
		super(message, cause);
	}

}
