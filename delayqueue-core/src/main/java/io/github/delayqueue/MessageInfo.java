package io.github.delayqueue;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.payload.PayloadConverter;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ParameterizedTypeReference;

/**
 * One message as the queue holds it now: found by id ({@link TopicOperations#lookup(String, String)}) or listed
 * ({@link TopicOperations#listWaiting(String, WaitingQuery)}). A snapshot: the message may move on while it is read.
 *
 * @since 1.0.0
 */
public final class MessageInfo {

	private final String id;

	private final String topic;

	private final MessageState state;

	private final @Nullable Instant dueAt;

	private final @Nullable Instant diedAt;

	private final int attempts;

	private final @Nullable String lastError;

	private final @Nullable Instant createdAt;

	private final Map<String, String> headers;

	private final @Nullable Instant expiresAt;

	private final byte[] payload;

	private final PayloadConverter converter;

	private final int priority;

	/**
	 * Creates the view of a message.
	 * @param id the message id
	 * @param topic the topic
	 * @param state where it is
	 * @param dueAt when it is (or, in flight, was) due; {@code null} for a dead letter
	 * @param diedAt when it died; {@code null} unless dead
	 * @param attempts the attempts counted so far
	 * @param lastError the last error, or {@code null}
	 * @param createdAt when it was scheduled, or {@code null} if its stored form could not be read
	 * @param headers its headers
	 * @param expiresAt its expiry deadline, or {@code null}
	 * @param payload the payload as stored (JSON bytes)
	 * @param converter reads the payload into a type
	 */
	public MessageInfo(String id, String topic, MessageState state, @Nullable Instant dueAt, @Nullable Instant diedAt,
			int attempts, @Nullable String lastError, @Nullable Instant createdAt, Map<String, String> headers,
			@Nullable Instant expiresAt, byte[] payload, PayloadConverter converter) {
		this(id, topic, state, dueAt, diedAt, attempts, lastError, createdAt, headers, expiresAt, payload, converter,
				MessagePriorities.DEFAULT);
	}

	/**
	 * Creates the view of a message with its priority.
	 * @param id the message id
	 * @param topic the topic
	 * @param state where it is
	 * @param dueAt when it is (or, in flight, was) due; {@code null} for a dead letter
	 * @param diedAt when it died; {@code null} unless dead
	 * @param attempts the attempts counted so far
	 * @param lastError the last error, or {@code null}
	 * @param createdAt when it was scheduled, or {@code null} if its stored form could not be read
	 * @param headers its headers
	 * @param expiresAt its expiry deadline, or {@code null}
	 * @param payload the payload as stored (JSON bytes)
	 * @param converter reads the payload into a type
	 * @param priority its priority (see {@link ScheduleRequest.Builder#priority(int)})
	 * @since 1.0.0
	 */
	public MessageInfo(String id, String topic, MessageState state, @Nullable Instant dueAt, @Nullable Instant diedAt,
			int attempts, @Nullable String lastError, @Nullable Instant createdAt, Map<String, String> headers,
			@Nullable Instant expiresAt, byte[] payload, PayloadConverter converter, int priority) {
		this.priority = priority;
		this.id = id;
		this.topic = topic;
		this.state = state;
		this.dueAt = dueAt;
		this.diedAt = diedAt;
		this.attempts = attempts;
		this.lastError = lastError;
		this.createdAt = createdAt;
		this.headers = Map.copyOf(headers);
		this.expiresAt = expiresAt;
		this.payload = payload;
		this.converter = converter;
	}

	/**
	 * The message's priority.
	 * @return {@value MessagePriorities#MIN} to {@value MessagePriorities#MAX}; {@value MessagePriorities#DEFAULT}
	 * if it set none
	 * @since 1.0.0
	 */
	public int priority() {
		return this.priority;
	}

	/**
	 * The message id.
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * The topic.
	 * @return the topic
	 */
	public String topic() {
		return this.topic;
	}

	/**
	 * Where the message is.
	 * @return the state
	 */
	public MessageState state() {
		return this.state;
	}

	/**
	 * When the message is due on the Redis clock (for a retry: when the retry is due; in flight: when the delivery
	 * was due); {@code null} for a dead letter.
	 * @return the due time or {@code null}
	 */
	public @Nullable Instant dueAt() {
		return this.dueAt;
	}

	/**
	 * When the message became a dead letter, on the Redis clock; {@code null} unless it is dead.
	 * @return the time or {@code null}
	 */
	public @Nullable Instant diedAt() {
		return this.diedAt;
	}

	/**
	 * The attempts counted so far (failed ones, and a suspect's run).
	 * @return the count
	 */
	public int attempts() {
		return this.attempts;
	}

	/**
	 * The last error of a retrying or dead message (exception class and message), or {@code null}.
	 * @return the error or {@code null}
	 */
	public @Nullable String lastError() {
		return this.lastError;
	}

	/**
	 * When the message was scheduled, on the scheduling application's clock.
	 * @return the time, or {@code null} if the stored form could not be read
	 */
	public @Nullable Instant createdAt() {
		return this.createdAt;
	}

	/**
	 * The headers given at scheduling time.
	 * @return the headers
	 */
	public Map<String, String> headers() {
		return this.headers;
	}

	/**
	 * The deadline after which the message is not delivered, or {@code null}.
	 * @return the deadline or {@code null}
	 */
	public @Nullable Instant expiresAt() {
		return this.expiresAt;
	}

	/**
	 * The payload as stored: JSON bytes.
	 * @return a copy of the bytes
	 */
	public byte[] rawPayload() {
		return this.payload.clone();
	}

	/**
	 * The payload as text (UTF-8), for display.
	 * @return the payload text
	 */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

	/**
	 * Reads the payload as a type, as a listener with that parameter type would receive it.
	 * @param <T> the type
	 * @param type the type
	 * @return the payload
	 * @throws io.github.delayqueue.payload.PayloadConversionException if it cannot be read as that type
	 */
	public <T> T payload(Class<T> type) {
		return type.cast(this.converter.read(this.payload, type));
	}

	/**
	 * Reads the payload as a generic type, such as {@code List<OrderLine>}.
	 * @param <T> the type
	 * @param type the type
	 * @return the payload
	 * @throws io.github.delayqueue.payload.PayloadConversionException if it cannot be read as that type
	 */
	@SuppressWarnings("unchecked")
	public <T> T payload(ParameterizedTypeReference<T> type) {
		return (T) this.converter.read(this.payload, type.getType());
	}

	@Override
	public String toString() {
		return "MessageInfo[topic=" + this.topic + ", id=" + this.id + ", state=" + this.state + ", dueAt="
				+ this.dueAt + ", attempts=" + this.attempts + "]";
	}

}
