package io.github.delayqueue;

/**
 * Thrown when a topic name breaks the rule in {@link Topics}. Nothing was written.
 *
 * @since 0.1.0
 */
public class InvalidTopicException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param message what is wrong with the name
	 */
	public InvalidTopicException(String message) {
		super(message);
	}

}
