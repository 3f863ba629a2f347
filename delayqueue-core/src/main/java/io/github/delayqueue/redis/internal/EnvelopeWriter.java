package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.ConcurrentModificationException;
import java.util.Map;

/**
 * Writes an {@link Envelope} in its stored form (format {@value Envelope#VERSION}, {@value Envelope#VERSION_3} or
 * {@value Envelope#VERSION_4}, laid out as {@link Envelope} describes): it sizes the envelope first and fills one
 * array of exactly that size, with no buffer or copy in between (a producer writes one per message).
 */
final class EnvelopeWriter {

	/** The largest array a JVM reliably allocates. */
	private static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

	private EnvelopeWriter() {
	}

	/**
	 * Encodes an envelope in format {@value Envelope#VERSION}, {@value Envelope#VERSION_3} (a group) or
	 * {@value Envelope#VERSION_4} (a priority other than the default).
	 * @param envelope the envelope
	 * @return the bytes to store
	 * @throws IllegalStateException if the creation time does not fit a long of epoch milliseconds, or the
	 * envelope would be larger than an array can be
	 */
	static byte[] encode(Envelope envelope) {
		long created = epochMillis(envelope.createdAt());
		Map<String, String> headers = envelope.headers();
		int count = headers.size();
		String group = envelope.group();
		int priority = envelope.priority();
		byte[] payload = envelope.payload();
		boolean prioritized = priority != Envelope.DEFAULT_PRIORITY;
		if (priority < 0 || priority > Envelope.MAX_PRIORITY) {
			throw new IllegalStateException("Priority " + priority + " cannot be encoded");
		}
		int groupBytes = (group != null) ? 1 + group.length() : (prioritized ? 1 : 0);
		if (prioritized) {
			groupBytes++;
		}
		if (group != null && (group.isEmpty() || group.length() > Envelope.MAX_GROUP_LENGTH)) {
			throw new IllegalStateException("Group key of " + group.length() + " characters cannot be encoded");
		}
		long size = 1L + groupBytes + varintSize(created) + varintSize(count) + payload.length;
		if (count != 0) {
			for (Map.Entry<String, String> header : headers.entrySet()) {
				size += stringSize(header.getKey()) + stringSize(header.getValue());
			}
		}
		if (size > MAX_ARRAY_LENGTH) {
			throw new IllegalStateException("Envelope of " + size + " bytes is too large to encode");
		}
		byte[] out = new byte[(int) size];
		out[0] = prioritized ? Envelope.VERSION_4 : (group != null) ? Envelope.VERSION_3 : Envelope.VERSION;
		int position = 1;
		if (prioritized) {
			out[position++] = (byte) priority;
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
		if (position + payload.length != out.length) {
			throw new ConcurrentModificationException("Headers changed while the envelope was being encoded");
		}
		System.arraycopy(payload, 0, out, position, payload.length);
		return out;
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

}
