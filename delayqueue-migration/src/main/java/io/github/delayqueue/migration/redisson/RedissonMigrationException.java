package io.github.delayqueue.migration.redisson;

/**
 * A migration that cannot run or cannot go on: a Redisson client still holds the queue, or an element cannot be
 * read with the codec given. The message says which, and whether anything was written.
 *
 * @since 1.0.0
 */
public class RedissonMigrationException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what went wrong
	 */
	public RedissonMigrationException(String message) {
		super(message);
	}

	/**
	 * Creates an exception with its cause.
	 * @param message what went wrong
	 * @param cause the cause
	 */
	public RedissonMigrationException(String message, Throwable cause) {
		super(message, cause);
	}

}
