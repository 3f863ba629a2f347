package io.github.delayqueue;

/**
 * Thrown when a serialised payload is larger than the configured limit. Nothing was written.
 *
 * @since 0.1.0
 */
public class PayloadTooLargeException extends IllegalArgumentException {

	private static final long serialVersionUID = 1L;

	private final long size;

	private final long limit;

	/**
	 * Creates the exception.
	 * @param topic the topic the payload was for
	 * @param size the serialised size in bytes
	 * @param limit the limit in bytes
	 */
	public PayloadTooLargeException(String topic, long size, long limit) {
		super("Payload for topic '" + topic + "' is " + size + " bytes serialised, over the limit of " + limit
				+ " bytes (delayqueue.max-payload-size)");
		this.size = size;
		this.limit = limit;
	}

	/**
	 * Serialised size of the rejected payload.
	 * @return the size in bytes
	 */
	public long getSize() {
		return this.size;
	}

	/**
	 * Limit that was exceeded.
	 * @return the limit in bytes
	 */
	public long getLimit() {
		return this.limit;
	}

}
