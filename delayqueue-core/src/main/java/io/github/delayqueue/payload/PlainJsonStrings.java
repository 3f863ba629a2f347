package io.github.delayqueue.payload;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * JSON string literals of printable ASCII without quotes or backslashes (an order id, say), written and read without
 * a JSON parser: such a literal is the string's characters between two quotes, whatever the mapper's settings, so
 * reading one needs no parser (which allocates more than the string itself) and writing one no generator. Anything
 * else (an escape, a non-ASCII or control character, white space around the literal) is left to the mapper.
 */
final class PlainJsonStrings {

	private PlainJsonStrings() {
	}

	/**
	 * The JSON literal of a string, if it is plain.
	 * @param value the string
	 * @return its literal in bytes, or {@code null} if it holds a character that is not plain
	 */
	static byte @Nullable [] write(String value) {
		int length = value.length();
		for (int i = 0; i < length; i++) {
			if (!isPlain(value.charAt(i))) {
				return null;
			}
		}
		byte[] bytes = new byte[length + 2];
		bytes[0] = '"';
		for (int i = 0; i < length; i++) {
			bytes[i + 1] = (byte) value.charAt(i);
		}
		bytes[length + 1] = '"';
		return bytes;
	}

	/**
	 * The string a plain JSON literal holds.
	 * @param bytes the bytes of a JSON value
	 * @return the string, or {@code null} if the bytes are not exactly a plain string literal
	 */
	static @Nullable String read(byte[] bytes) {
		int last = bytes.length - 1;
		if (last < 1 || bytes[0] != '"' || bytes[last] != '"') {
			return null;
		}
		for (int i = 1; i < last; i++) {
			if (!isPlain((char) (bytes[i] & 0xFF))) {
				return null;
			}
		}
		return new String(bytes, 1, last - 1, StandardCharsets.ISO_8859_1);
	}

	/** Printable ASCII except the two characters JSON always escapes in a string. */
	private static boolean isPlain(char c) {
		return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
	}

}
