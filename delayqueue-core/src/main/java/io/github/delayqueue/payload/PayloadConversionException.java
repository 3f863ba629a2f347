package io.github.delayqueue.payload;

/**
 * Thrown when stored bytes cannot be read as the payload type a listener asks for. Retrying cannot help, so a
 * message whose payload fails this way goes to the dead letters at once, with this exception's message.
 *
 * @since 0.1.0
 */
public class PayloadConversionException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what could not be read, and as what
	 * @param cause the underlying failure
	 */
	public PayloadConversionException(String message, Throwable cause) {
		super(message, cause);
	}

}
