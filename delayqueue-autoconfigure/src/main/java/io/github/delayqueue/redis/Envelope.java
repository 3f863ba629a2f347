package io.github.delayqueue.redis;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored form of a message: a format version, the creation time, the headers, then the payload bytes as
 * they are (no escaping). Every later format must still read version 1.
 *
 * <pre>
 * byte     version (1)
 * int64    created at, epoch milliseconds, big-endian
 * varint   header count, then per header: varint length + UTF-8 name, varint length + UTF-8 value
 * byte[]   payload, to the end
 * </pre>
 *
 * @param createdAt when the message was scheduled
 * @param headers the headers
 * @param payload the serialised payload
 */
public record Envelope(Instant createdAt, Map<String, String> headers, byte[] payload) {

	/** The format version written by this release. */
	public static final byte VERSION = 1;

	/**
	 * Encodes this envelope.
	 * @return the bytes to store
	 */
	public byte[] encode() {
		ByteArrayOutputStream out = new ByteArrayOutputStream(16 + this.payload.length);
		out.write(VERSION);
		long created = this.createdAt.toEpochMilli();
		for (int shift = 56; shift >= 0; shift -= 8) {
			out.write((int) (created >>> shift));
		}
		writeVarint(out, this.headers.size());
		this.headers.forEach((name, value) -> {
			writeString(out, name);
			writeString(out, value);
		});
		out.writeBytes(this.payload);
		return out.toByteArray();
	}

	/**
	 * Decodes stored bytes.
	 * @param bytes the stored bytes
	 * @return the envelope
	 * @throws MalformedEnvelopeException if the bytes are not an envelope of a known version
	 */
	public static Envelope decode(byte[] bytes) {
		if (bytes.length < 10) {
			throw new MalformedEnvelopeException("Stored message is too short (" + bytes.length + " bytes)");
		}
		if (bytes[0] != VERSION) {
			throw new MalformedEnvelopeException("Stored message has unknown format version " + bytes[0]);
		}
		try {
			ByteBuffer in = ByteBuffer.wrap(bytes);
			in.get();
			Instant created = Instant.ofEpochMilli(in.getLong());
			int count = readVarint(in);
			Map<String, String> headers;
			if (count == 0) {
				headers = Collections.emptyMap();
			}
			else {
				headers = new LinkedHashMap<>(count * 2);
				for (int i = 0; i < count; i++) {
					headers.put(readString(in), readString(in));
				}
				headers = Collections.unmodifiableMap(headers);
			}
			byte[] payload = new byte[in.remaining()];
			in.get(payload);
			return new Envelope(created, headers, payload);
		}
		catch (RuntimeException ex) {
			throw new MalformedEnvelopeException("Stored message is corrupt: " + ex, ex);
		}
	}

	private static void writeString(ByteArrayOutputStream out, String value) {
		byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
		writeVarint(out, bytes.length);
		out.writeBytes(bytes);
	}

	private static String readString(ByteBuffer in) {
		int length = readVarint(in);
		if (length > in.remaining()) {
			throw new IllegalStateException("string of " + length + " bytes overruns the message");
		}
		String value = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
		in.position(in.position() + length);
		return value;
	}

	private static void writeVarint(ByteArrayOutputStream out, int value) {
		int v = value;
		while ((v & ~0x7F) != 0) {
			out.write((v & 0x7F) | 0x80);
			v >>>= 7;
		}
		out.write(v);
	}

	private static int readVarint(ByteBuffer in) {
		int value = 0;
		for (int shift = 0; shift < 32; shift += 7) {
			byte b = in.get();
			value |= (b & 0x7F) << shift;
			if ((b & 0x80) == 0) {
				if (value < 0) {
					throw new IllegalStateException("negative length");
				}
				return value;
			}
		}
		throw new IllegalStateException("varint too long");
	}

}
