package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What a stored message holds, decoded; or, when its stored form cannot be read, why not (with the raw bytes as
 * the payload, for display).
 *
 * @param createdAt when it was scheduled, or {@code null} if unreadable
 * @param headers the headers (empty if unreadable)
 * @param payload the serialised payload, or the raw stored bytes if unreadable
 * @param malformation why the stored form cannot be read, or {@code null} if it can
 * @param group the message's group key, or {@code null} for none (or if unreadable)
 * @param priority the message's priority, 0 to 9 (the default, 4, if it set none or is unreadable)
 * @since 0.1.0
 */
public record StoredMessage(@Nullable Instant createdAt, Map<String, String> headers, byte[] payload,
		@Nullable String malformation, @Nullable String group, int priority) {

	/**
	 * What a stored message of the default priority holds.
	 * @param createdAt when it was scheduled, or {@code null} if unreadable
	 * @param headers the headers (empty if unreadable)
	 * @param payload the serialised payload, or the raw stored bytes if unreadable
	 * @param malformation why the stored form cannot be read, or {@code null} if it can
	 * @param group the message's group key, or {@code null} for none
	 */
	public StoredMessage(@Nullable Instant createdAt, Map<String, String> headers, byte[] payload,
			@Nullable String malformation, @Nullable String group) {
		this(createdAt, headers, payload, malformation, group, Envelope.DEFAULT_PRIORITY);
	}

	/**
	 * What a stored message without a group holds.
	 * @param createdAt when it was scheduled, or {@code null} if unreadable
	 * @param headers the headers (empty if unreadable)
	 * @param payload the serialised payload, or the raw stored bytes if unreadable
	 * @param malformation why the stored form cannot be read, or {@code null} if it can
	 */
	public StoredMessage(@Nullable Instant createdAt, Map<String, String> headers, byte[] payload,
			@Nullable String malformation) {
		this(createdAt, headers, payload, malformation, null);
	}

	private static final byte[] EMPTY = new byte[0];

	/**
	 * Whether the stored form was read.
	 * @return {@code true} if {@link #malformation()} is {@code null}
	 */
	public boolean isReadable() {
		return this.malformation == null;
	}

	static StoredMessage decode(byte @Nullable [] stored) {
		if (stored == null) {
			return new StoredMessage(null, Map.of(), EMPTY, "Nothing is stored for this message");
		}
		try {
			return Envelope.decode(stored, (createdAt, headers, payload, group, priority) -> new StoredMessage(createdAt,
					headers, payload, null, group, priority));
		}
		catch (MalformedEnvelopeException ex) {
			return new StoredMessage(null, Map.of(), stored, ex.getMessage());
		}
	}

}
