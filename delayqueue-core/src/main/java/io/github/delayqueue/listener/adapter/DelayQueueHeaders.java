package io.github.delayqueue.listener.adapter;

/**
 * Names of the Spring Messaging headers a listener method can read with
 * {@link org.springframework.messaging.handler.annotation.Header @Header}, besides the message's own headers.
 *
 * @since 0.1.0
 */
public final class DelayQueueHeaders {

	/** The prefix of every header this library sets. */
	public static final String PREFIX = "delayqueue_";

	/** The message id ({@code String}). */
	public static final String MESSAGE_ID = PREFIX + "messageId";

	/** The topic ({@code String}). */
	public static final String TOPIC = PREFIX + "topic";

	/** The attempt number, from 1 ({@code Integer}). */
	public static final String ATTEMPT = PREFIX + "attempt";

	/** Whether the message was delivered before without an outcome ({@code Boolean}). */
	public static final String REDELIVERED = PREFIX + "redelivered";

	/** When the message was due ({@code java.time.Instant}, Redis clock). */
	public static final String DUE_AT = PREFIX + "dueAt";

	/**
	 * In the Spring Messaging message a batch listener method is invoked with: the batch's messages
	 * ({@code List<DeliveredMessage>}, in the order of the payloads), which a {@code List<DeliveredMessage>}
	 * parameter receives.
	 * @since 1.0.0
	 */
	public static final String BATCH_MESSAGES = PREFIX + "batchMessages";

	private DelayQueueHeaders() {
	}

}
