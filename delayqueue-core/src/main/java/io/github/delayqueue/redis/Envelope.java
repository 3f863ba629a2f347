package io.github.delayqueue.redis;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.ConcurrentModificationException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The stored form of a message: a format version, the creation time, the headers, then the payload bytes as
 * they are (no escaping).
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

	private static final byte VERSION_1 = 1;

	private static final int VERSION_1_MIN_LENGTH = 1 + 8 + 1;

	private static final int VERSION_2_MIN_LENGTH = 1 + 1 + 1;

	private static final int VERSION_5_MIN_LENGTH = 1 + 8 + 1 + 1;

	private static final int MAX_INT_VARINT_BYTES = 5;

	private static final int MAX_LONG_VARINT_BYTES = 10;

	private static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

	/**
	 * Encodes this envelope in format {@value #VERSION}, {@value #VERSION_3} (a group) or {@value #VERSION_4} (a
	 * priority other than the default).
	 * @return the bytes to store
	 * @throws IllegalStateException if the creation time does not fit a long of epoch milliseconds, or the
	 * envelope would be larger than an array can be
	 */
	byte[] encode() {
		long created = epochMillis(this.createdAt);
		Map<String, String> headers = this.headers;
		int count = headers.size();
		String group = this.group;
		boolean prioritized = this.priority != DEFAULT_PRIORITY;
		if (this.priority < 0 || this.priority > MAX_PRIORITY) {
			throw new IllegalStateException("Priority " + this.priority + " cannot be encoded");
		}
		int groupBytes = (group != null) ? 1 + group.length() : (prioritized ? 1 : 0);
		if (prioritized) {
			groupBytes++;
		}
		if (group != null && (group.isEmpty() || group.length() > MAX_GROUP_LENGTH)) {
			throw new IllegalStateException("Group key of " + group.length() + " characters cannot be encoded");
		}
		long size = 1L + groupBytes + varintSize(created) + varintSize(count) + this.payload.length;
		if (count != 0) {
			for (Map.Entry<String, String> header : headers.entrySet()) {
				size += stringSize(header.getKey()) + stringSize(header.getValue());
			}
		}
		if (size > MAX_ARRAY_LENGTH) {
			throw new IllegalStateException("Envelope of " + size + " bytes is too large to encode");
		}
		byte[] out = new byte[(int) size];
		out[0] = prioritized ? VERSION_4 : (group != null) ? VERSION_3 : VERSION;
		int position = 1;
		if (prioritized) {
			out[position++] = (byte) this.priority;
			if (group == null) {
				out[position++] = 0;
			}
		}
		if (group != null) {
			out[position++] = (byte) group.length();
			for (int i = 0; i < group.length(); i++) {
				char c = group.charAt(i);
				if (c < 0x21 || c > 0x7E) {
					throw new IllegalStateException("Group key must be printable ASCII");
				}
				out[position++] = (byte) c;
			}
		}
		position = writeVarint(out, position, created);
		position = writeVarint(out, position, count);
		if (count != 0) {
			for (Map.Entry<String, String> header : headers.entrySet()) {
				position = writeString(out, position, header.getKey());
				position = writeString(out, position, header.getValue());
			}
		}
		if (position + this.payload.length != out.length) {
			throw new ConcurrentModificationException("Headers changed while the envelope was being encoded");
		}
		System.arraycopy(this.payload, 0, out, position, this.payload.length);
		return out;
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
		if (bytes.length == 0) {
			throw new MalformedEnvelopeException("Stored message is too short (0 bytes)");
		}
		int version = bytes[0] & 0xFF;
		try {
			return switch (version) {
				case VERSION, VERSION_3, VERSION_4 -> decode(bytes, VERSION_2_MIN_LENGTH, version, into);
				case VERSION_5 -> decode(bytes, VERSION_5_MIN_LENGTH, version, into);
				case VERSION_1 -> decode(bytes, VERSION_1_MIN_LENGTH, version, into);
				default -> throw new MalformedEnvelopeException("Stored message has unknown format version " + version);
			};
		}
		catch (MalformedEnvelopeException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			throw new MalformedEnvelopeException("Stored message is corrupt: " + ex, ex);
		}
	}

	private static <T> T decode(byte[] bytes, int minLength, int version, Parts<T> into) {
		if (bytes.length < minLength) {
			throw new MalformedEnvelopeException("Stored message is too short for format " + version + " ("
					+ bytes(bytes.length) + ", at least " + minLength + ")");
		}
		Reader in = new Reader(bytes);
		if (version == VERSION_5) {
			// the due time in front: the scripts' to find the message's page
			in.position += 8;
		}
		int priority = (version == VERSION_4) ? in.readPriority() : DEFAULT_PRIORITY;
		String group = (version == VERSION_3 || (version == VERSION_4 && in.hasGroup())) ? in.readGroup() : null;
		long created = (version == VERSION_1) ? in.readInt64() : in.readCreatedAt();
		// Every long of epoch milliseconds is an Instant: Instant spans about 1e9 years either side of 1970
		Instant createdAt = Instant.ofEpochMilli(created);
		Map<String, String> headers = in.readHeaders();
		byte[] payload = Arrays.copyOfRange(bytes, in.position, bytes.length);
		return into.of(createdAt, headers, payload, group, priority);
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

	private static long epochMillis(Instant instant) {
		try {
			return instant.toEpochMilli();
		}
		catch (ArithmeticException ex) {
			throw new IllegalStateException(
					"Creation time " + instant + " is out of range: it must fit a long of epoch milliseconds", ex);
		}
	}

	private static int varintSize(long value) {
		return (63 - Long.numberOfLeadingZeros(value | 1)) / 7 + 1;
	}

	private static int writeVarint(byte[] out, int position, long value) {
		int p = position;
		long v = value;
		while ((v & ~0x7FL) != 0) {
			out[p++] = (byte) ((v & 0x7F) | 0x80);
			v >>>= 7;
		}
		out[p++] = (byte) v;
		return p;
	}

	private static long stringSize(String value) {
		int length = utf8Length(value);
		return varintSize(length) + (long) length;
	}

	/**
	 * The length of {@code value} in UTF-8 as {@link String#getBytes(java.nio.charset.Charset)} writes it: an
	 * unpaired surrogate becomes {@code '?'}.
	 */
	private static int utf8Length(String value) {
		int chars = value.length();
		long length = chars;
		for (int i = 0; i < chars; i++) {
			char c = value.charAt(i);
			if (c >= 0x80) {
				if (c < 0x800) {
					length += 1;
				}
				else if (!Character.isSurrogate(c)) {
					length += 2;
				}
				else if (Character.isHighSurrogate(c) && i + 1 < chars
						&& Character.isLowSurrogate(value.charAt(i + 1))) {
					length += 2;
					i++;
				}
			}
		}
		if (length > Integer.MAX_VALUE) {
			throw new IllegalStateException("Header of " + length + " bytes in UTF-8 is too large to encode");
		}
		return (int) length;
	}

	private static int writeString(byte[] out, int position, String value) {
		int p = writeVarint(out, position, utf8Length(value));
		int chars = value.length();
		for (int i = 0; i < chars; i++) {
			char c = value.charAt(i);
			if (c < 0x80) {
				out[p++] = (byte) c;
			}
			else if (c < 0x800) {
				out[p++] = (byte) (0xC0 | (c >> 6));
				out[p++] = (byte) (0x80 | (c & 0x3F));
			}
			else if (!Character.isSurrogate(c)) {
				out[p++] = (byte) (0xE0 | (c >> 12));
				out[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
				out[p++] = (byte) (0x80 | (c & 0x3F));
			}
			else if (Character.isHighSurrogate(c) && i + 1 < chars
					&& Character.isLowSurrogate(value.charAt(i + 1))) {
				int codePoint = Character.toCodePoint(c, value.charAt(++i));
				out[p++] = (byte) (0xF0 | (codePoint >> 18));
				out[p++] = (byte) (0x80 | ((codePoint >> 12) & 0x3F));
				out[p++] = (byte) (0x80 | ((codePoint >> 6) & 0x3F));
				out[p++] = (byte) (0x80 | (codePoint & 0x3F));
			}
			else {
				out[p++] = '?';
			}
		}
		return p;
	}

	private static String bytes(int count) {
		return (count == 1) ? "1 byte" : count + " bytes";
	}

	private static MalformedEnvelopeException corrupt(String problem) {
		return new MalformedEnvelopeException("Stored message is corrupt: " + problem);
	}

	/**
	 * Reads the parts after the version byte, checking each against the bytes left. Messages name the part by
	 * a header number (1 for the first) and "name" or "value"; they are built only when something is wrong.
	 */
	private static final class Reader {

		private static final int CREATED_AT = -1;

		private static final int HEADER_COUNT = 0;

		private final byte[] bytes;

		private int position = 1;

		Reader(byte[] bytes) {
			this.bytes = bytes;
		}

		private int remaining() {
			return this.bytes.length - this.position;
		}

		long readInt64() {
			long value = 0;
			for (int i = 0; i < 8; i++) {
				value = (value << 8) | (this.bytes[this.position++] & 0xFF);
			}
			return value;
		}

		int readPriority() {
			int priority = this.bytes[this.position++] & 0xFF;
			if (priority > MAX_PRIORITY || remaining() < 1) {
				throw corrupt("priority " + priority + " is not 0 to " + MAX_PRIORITY + ", or no group length follows");
			}
			return priority;
		}

		/** Whether a group follows (format 4): its length is not 0; a length of 0 is consumed. */
		boolean hasGroup() {
			if (this.bytes[this.position] == 0) {
				this.position++;
				return false;
			}
			return true;
		}

		String readGroup() {
			int length = this.bytes[this.position++] & 0xFF;
			if (length == 0 || length > MAX_GROUP_LENGTH || length > remaining()) {
				throw corrupt("group key length " + length + " is not 1 to " + MAX_GROUP_LENGTH + " within the "
						+ bytes(remaining()) + " left");
			}
			for (int i = this.position; i < this.position + length; i++) {
				if (this.bytes[i] < 0x21 || this.bytes[i] > 0x7E) {
					throw corrupt("group key is not printable ASCII");
				}
			}
			String group = new String(this.bytes, this.position, length, StandardCharsets.US_ASCII);
			this.position += length;
			return group;
		}

		long readCreatedAt() {
			return readVarint(MAX_LONG_VARINT_BYTES, CREATED_AT, null);
		}

		Map<String, String> readHeaders() {
			int count = readLength(HEADER_COUNT, null);
			// Each header takes at least 2 bytes (two empty strings): check before allocating anything
			if (count > remaining() / 2) {
				throw corrupt("header count " + count + " exceeds the " + bytes(remaining())
						+ " left (each header takes at least 2)");
			}
			if (count == 0) {
				return Collections.emptyMap();
			}
			if (count == 1) {
				return Collections.singletonMap(readString(1, "name"), readString(1, "value"));
			}
			Map<String, String> headers = new LinkedHashMap<>((int) (count / 0.75f) + 1);
			for (int i = 1; i <= count; i++) {
				headers.put(readString(i, "name"), readString(i, "value"));
			}
			return Collections.unmodifiableMap(headers);
		}

		private String readString(int header, String part) {
			int length = readLength(header, part);
			if (length > remaining()) {
				throw corrupt(describe(header, part) + " " + length + " exceeds the " + bytes(remaining()) + " left");
			}
			int start = this.position;
			this.position += length;
			for (int i = start; i < this.position; i++) {
				if (this.bytes[i] < 0) {
					return decodeUtf8(start, length, header, part);
				}
			}
			return new String(this.bytes, start, length, StandardCharsets.ISO_8859_1);
		}

		private String decodeUtf8(int start, int length, int header, String part) {
			try {
				return StandardCharsets.UTF_8.newDecoder()
					.decode(ByteBuffer.wrap(this.bytes, start, length))
					.toString();
			}
			catch (CharacterCodingException ex) {
				throw new MalformedEnvelopeException(
						"Stored message is corrupt: header " + header + " " + part + " is not valid UTF-8", ex);
			}
		}

		/**
		 * Reads a count or length: at most {@link Integer#MAX_VALUE}, so never what a format 1 writer would
		 * have seen as a negative int.
		 */
		private int readLength(int header, @Nullable String part) {
			long value = readVarint(MAX_INT_VARINT_BYTES, header, part);
			if (value > Integer.MAX_VALUE) {
				throw corrupt(describe(header, part) + " " + value + " is negative or too large (at most "
						+ Integer.MAX_VALUE + ")");
			}
			return (int) value;
		}

		/**
		 * Reads an unsigned LEB128 varint of at most {@code maxBytes} bytes (5 for an int, 10 for a long).
		 */
		private long readVarint(int maxBytes, int header, @Nullable String part) {
			int start = this.position;
			long value = 0;
			for (int i = 0; i < maxBytes; i++) {
				if (this.position == this.bytes.length) {
					throw corrupt(describe(header, part) + " (a varint at byte " + start
							+ ") is truncated by the end of the message");
				}
				int b = this.bytes[this.position++] & 0xFF;
				if (i == MAX_LONG_VARINT_BYTES - 1 && b > 1) {
					throw corrupt(describe(header, part) + " (a varint at byte " + start + ") overflows 64 bits");
				}
				value |= (long) (b & 0x7F) << (7 * i);
				if (b < 0x80) {
					return value;
				}
			}
			throw corrupt(describe(header, part) + " (a varint at byte " + start + ") is longer than " + maxBytes
					+ " bytes");
		}

		private static String describe(int header, @Nullable String part) {
			return switch (header) {
				case CREATED_AT -> "created at";
				case HEADER_COUNT -> "header count";
				default -> "header " + header + " " + part + " length";
			};
		}

	}

}
