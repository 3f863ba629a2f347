package io.github.delayqueue.listener;

import java.time.Duration;

/**
 * A handler ran beyond its listener's handler timeout: the delivery failed with this exception (retried with the
 * back-off, or dead-lettered when its attempts are used up), and the handler's thread was interrupted.
 *
 * @since 1.0.0
 */
public class HandlerTimeoutException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param topic the topic
	 * @param id the message id
	 * @param timeout the handler timeout
	 */
	public HandlerTimeoutException(String topic, String id, Duration timeout) {
		super("Topic '" + topic + "': the handler of message '" + id + "' ran beyond the handler timeout of " + timeout);
	}

}
