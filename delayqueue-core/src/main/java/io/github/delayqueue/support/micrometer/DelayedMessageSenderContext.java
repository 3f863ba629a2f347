package io.github.delayqueue.support.micrometer;

import java.util.Map;

import io.micrometer.observation.transport.SenderContext;

/**
 * The observation context of scheduling one message. Its carrier is the message's headers (a mutable map), into
 * which a tracer writes the current trace context before the message is stored.
 *
 * @since 0.1.0
 */
public class DelayedMessageSenderContext extends SenderContext<Map<String, String>> {

	private final String topic;

	private final String messageId;

	/**
	 * Creates the context.
	 * @param headers the message's headers, mutable
	 * @param topic the topic
	 * @param messageId the message id
	 */
	public DelayedMessageSenderContext(Map<String, String> headers, String topic, String messageId) {
		super((carrier, key, value) -> {
			if (carrier != null) {
				carrier.put(key, value);
			}
		});
		setCarrier(headers);
		setRemoteServiceName("delayqueue");
		this.topic = topic;
		this.messageId = messageId;
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

}
