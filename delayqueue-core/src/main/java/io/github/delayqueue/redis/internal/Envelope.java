package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The stored form of a message: a format version, the creation time, the headers, then the payload bytes as
 * they are (no escaping).
 * <p>
 * This record holds a message's parts and says how each format lays them out; {@link EnvelopeWriter} writes the
 * stored form and {@link EnvelopeReader} reads it, each in one pass over one array.
 * <p>
 * {@link #encode()} writes format 2, format 3 for a message with a group key, or format 4 for a message with a
 * priority other than the default; the scripts write format 5 from format 2 for a message that waits in a page.
 * {@link #decode(byte[])} reads formats 5, 4, 3, 2 and 1 (no longer written); every later release must still read
 * them all, since messages may wait in Redis for a long time.
 * <p>
 * Format 5 (written by the scripts since 0.3 for a plain message scheduled into a page of its topic, stored format 5;
 * the scripts read the due time from it to find the page):
 *
 * <pre>
 * byte     version (5)
 * double   the due time the message was first scheduled for, epoch milliseconds, 8 bytes, big-endian
 * ...      then format 2's fields after its version byte
 * </pre>
 * <p>
 * Format 4 (written since 0.3 for a message with a priority other than {@value #DEFAULT_PRIORITY}; the scripts read
 * the priority and the group from it):
 *
 * <pre>
 * byte     version (4)
 * byte     priority, 0 to 9
 * byte     group key length in bytes, 0 (no group) to 64
 * byte[]   group key, US-ASCII
 * ...      then format 2's fields after its version byte
 * </pre>
 * <p>
 * Format 3 (written since 0.3 for a message with a group key; the scripts read the group from it):
 *
 * <pre>
 * byte     version (3)
 * byte     group key length in bytes, 1 to 64 (the key is printable ASCII)
 * byte[]   group key, US-ASCII
 * ...      then format 2's fields after its version byte
 * </pre>
 * <p>
 * Format 2 (written since {@link #VERSION} 2):
 *
 * <pre>
 * byte     version (2)
 * varint   created at, epoch milliseconds: the 64 bits of the long (6 bytes from February 1971 to May 2109,
 *          10 bytes before 1970)
 * varint   header count, then per header: varint length + UTF-8 name, varint length + UTF-8 value
 * byte[]   payload, to the end
 * </pre>
 *
 * Format 1 (read, no longer written):
 *
 * <pre>
 * byte     version (1)
 * int64    created at, epoch milliseconds, big-endian
 * varint   header count, then per header: varint length + UTF-8 name, varint length + UTF-8 value
 * byte[]   payload, to the end
 * </pre>
 *
 * In both formats a varint is unsigned LEB128: 7 bits per byte, the lowest group first, the high bit set on
 * every byte but the last (redundant high zero groups are read, never written). Counts and lengths are at most
 * 5 bytes and at most {@link Integer#MAX_VALUE}; the creation time is at most 10 bytes and 64 bits. Names and
 * values are well-formed UTF-8. So the smallest envelope is 3 bytes in format 2 and 10 bytes in format 1.
 * <p>
 * Headers keep their order. Should stored bytes name a header twice, decoding keeps the last value (at the
 * place of the first). The creation time is stored to the millisecond, so an envelope whose creation time has
 * a finer precision decodes to one truncated to the millisecond.
 * <p>
 * Decoding checks every count and length against the bytes left before it allocates anything, so corrupt or
 * hostile bytes fail with a {@link MalformedEnvelopeException} that says what is wrong, never with another
 * exception or an allocation larger than the input.
 *
 * @param createdAt when the message was scheduled
 * @param headers the headers
 * @param payload the serialised payload
 * @param group the message's group key, or {@code null} (see {@link #VERSION_3})
 * @param priority the message's priority, 0 to 9 (see {@link #VERSION_4})
 */
record Envelope(Instant createdAt, Map<String, String> headers, byte[] payload, @Nullable String group,
		int priority) {

	/** The format version written by this release for a message without a group. */
	static final byte VERSION = 2;

	/** The format version written for a message with a group key. */
	static final byte VERSION_3 = 3;

	/** The format version written for a message with a priority other than the default. */
	static final byte VERSION_4 = 4;

	/** The format version the scripts write for a message waiting in a page: format 2 with its due time in front. */
	static final byte VERSION_5 = 5;

	/** The first format version, read and no longer written. */
	static final byte VERSION_1 = 1;

	/** The priority of a message stored in formats 1 to 3 and 5. */
	static final int DEFAULT_PRIORITY = 4;

	/** The highest priority. */
	static final int MAX_PRIORITY = 9;

	/** The longest group key, in bytes (a single length byte the scripts read). */
	static final int MAX_GROUP_LENGTH = 64;

	Envelope(Instant createdAt, Map<String, String> headers, byte[] payload) {
		this(createdAt, headers, payload, null, DEFAULT_PRIORITY);
	}

	Envelope(Instant createdAt, Map<String, String> headers, byte[] payload, @Nullable String group) {
		this(createdAt, headers, payload, group, DEFAULT_PRIORITY);
	}

	/**
	 * Encodes this envelope in format {@value #VERSION}, {@value #VERSION_3} (a group) or {@value #VERSION_4} (a
	 * priority other than the default).
	 * @return the bytes to store
	 * @throws IllegalStateException if the creation time does not fit a long of epoch milliseconds, or the
	 * envelope would be larger than an array can be
	 */
	byte[] encode() {
		return EnvelopeWriter.encode(this);
	}

	/**
	 * Decodes stored bytes of format 1, 2, 3, 4 or 5.
	 * @param bytes the stored bytes
	 * @return the envelope, with unmodifiable headers
	 * @throws MalformedEnvelopeException if the bytes are not an envelope of a known version, saying what is
	 * wrong with them
	 */
	static Envelope decode(byte[] bytes) {
		return decode(bytes, Envelope::new);
	}

	/**
	 * Reads a stored envelope straight into what the caller builds of it (a claim reads one per message: no envelope
	 * on the way).
	 * @param bytes the stored form
	 * @param into what to build of the creation time, headers, payload, group and priority
	 * @throws MalformedEnvelopeException if the stored form cannot be read
	 */
	static <T> T decode(byte[] bytes, Parts<T> into) {
		return EnvelopeReader.decode(bytes, into);
	}

	/**
	 * What a caller builds of a decoded envelope's parts.
	 * @param <T> what it builds
	 */
	@FunctionalInterface
	interface Parts<T> {

		T of(Instant createdAt, Map<String, String> headers, byte[] payload, @Nullable String group, int priority);

	}

	/**
	 * Whether the other object is an envelope with an equal creation time, equal headers and a payload of the
	 * same bytes.
	 */
	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		return (other instanceof Envelope that) && this.createdAt.equals(that.createdAt)
				&& this.headers.equals(that.headers) && Arrays.equals(this.payload, that.payload)
				&& Objects.equals(this.group, that.group) && this.priority == that.priority;
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.createdAt, this.headers, Arrays.hashCode(this.payload), this.group, this.priority);
	}

	@Override
	public String toString() {
		return "Envelope[createdAt=" + this.createdAt + ", headers=" + this.headers + ", payload="
				+ this.payload.length + " bytes" + ((this.group != null) ? ", group=" + this.group : "")
				+ ((this.priority != DEFAULT_PRIORITY) ? ", priority=" + this.priority : "") + "]";
	}

}
