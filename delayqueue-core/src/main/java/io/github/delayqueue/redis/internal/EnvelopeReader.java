package io.github.delayqueue.redis.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Reads an {@link Envelope}'s stored form, of any format {@link Envelope} describes, straight into what the caller
 * builds of it: one reader over the stored bytes per message, the payload copied once, no envelope on the way.
 * <p>
 * It reads the parts after the version byte, checking each against the bytes left before it allocates anything.
 * Messages name the part by a header number (1 for the first) and "name" or "value"; they are built only when
 * something is wrong.
 */
final class EnvelopeReader {

	private static final int VERSION_1_MIN_LENGTH = 1 + 8 + 1;

	private static final int VERSION_2_MIN_LENGTH = 1 + 1 + 1;

	private static final int VERSION_5_MIN_LENGTH = 1 + 8 + 1 + 1;

	private static final int MAX_INT_VARINT_BYTES = 5;

	private static final int MAX_LONG_VARINT_BYTES = 10;

	private static final int CREATED_AT = -1;

	private static final int HEADER_COUNT = 0;

	private final byte[] bytes;

	private int position = 1;

	private EnvelopeReader(byte[] bytes) {
		this.bytes = bytes;
	}

	/**
	 * Reads a stored envelope straight into what the caller builds of it (a claim reads one per message: no envelope
	 * on the way).
	 * @param bytes the stored form
	 * @param into what to build of the creation time, headers, payload, group and priority
	 * @throws MalformedEnvelopeException if the stored form cannot be read
	 */
	static <T> T decode(byte[] bytes, Envelope.Parts<T> into) {
		if (bytes.length == 0) {
			throw new MalformedEnvelopeException("Stored message is too short (0 bytes)");
		}
		int version = bytes[0] & 0xFF;
		try {
			return switch (version) {
				case Envelope.VERSION, Envelope.VERSION_3, Envelope.VERSION_4 ->
					decode(bytes, VERSION_2_MIN_LENGTH, version, into);
				case Envelope.VERSION_5 -> decode(bytes, VERSION_5_MIN_LENGTH, version, into);
				case Envelope.VERSION_1 -> decode(bytes, VERSION_1_MIN_LENGTH, version, into);
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

	private static <T> T decode(byte[] bytes, int minLength, int version, Envelope.Parts<T> into) {
		if (bytes.length < minLength) {
			throw new MalformedEnvelopeException("Stored message is too short for format " + version + " ("
					+ bytes(bytes.length) + ", at least " + minLength + ")");
		}
		EnvelopeReader in = new EnvelopeReader(bytes);
		if (version == Envelope.VERSION_5) {
			// the due time in front: the scripts' to find the message's page
			in.position += 8;
		}
		int priority = (version == Envelope.VERSION_4) ? in.readPriority() : Envelope.DEFAULT_PRIORITY;
		String group = (version == Envelope.VERSION_3 || (version == Envelope.VERSION_4 && in.hasGroup()))
				? in.readGroup() : null;
		long created = (version == Envelope.VERSION_1) ? in.readInt64() : in.readCreatedAt();
		// Every long of epoch milliseconds is an Instant: Instant spans about 1e9 years either side of 1970
		Instant createdAt = Instant.ofEpochMilli(created);
		Map<String, String> headers = in.readHeaders();
		byte[] payload = Arrays.copyOfRange(bytes, in.position, bytes.length);
		return into.of(createdAt, headers, payload, group, priority);
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
		if (priority > Envelope.MAX_PRIORITY || remaining() < 1) {
			throw corrupt(
					"priority " + priority + " is not 0 to " + Envelope.MAX_PRIORITY + ", or no group length follows");
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
		if (length == 0 || length > Envelope.MAX_GROUP_LENGTH || length > remaining()) {
			throw corrupt("group key length " + length + " is not 1 to " + Envelope.MAX_GROUP_LENGTH
					+ " within the " + bytes(remaining()) + " left");
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

	private static String bytes(int count) {
		return (count == 1) ? "1 byte" : count + " bytes";
	}

	private static MalformedEnvelopeException corrupt(String problem) {
		return new MalformedEnvelopeException("Stored message is corrupt: " + problem);
	}

}
