package io.github.delayqueue.support.micrometer;

import java.util.Map;

import io.micrometer.observation.transport.ReceiverContext;

/**
 * The observation context of a handler call. Its carrier is the message's headers, from which a tracer reads the
 * trace context stored when the message was scheduled.
 *
 * @since 0.1.0
 */
public class DelayedMessageReceiverContext extends ReceiverContext<Map<String, String>> {

	private final String topic;

	private final String messageId;

	private final int attempt;

	/**
	 * Creates the context.
	 * @param headers the message's headers
	 * @param topic the topic
	 * @param messageId the message id
	 * @param attempt the delivery attempt
	 */
	public DelayedMessageReceiverContext(Map<String, String> headers, String topic, String messageId, int attempt) {
		super((carrier, key) -> carrier.get(key));
		setCarrier(headers);
		setRemoteServiceName("delayqueue");
		this.topic = topic;
		this.messageId = messageId;
		this.attempt = attempt;
	}

	/**
	 * Topic of the message.
	 * @return the topic
	 */
	public String getTopic() {
		return this.topic;
	}

	/**
	 * Id of the message.
	 * @return the id
	 */
	public String getMessageId() {
		return this.messageId;
	}

	/**
	 * Delivery attempt, from 1.
	 * @return the attempt
	 */
	public int getAttempt() {
		return this.attempt;
	}

}
