package io.github.delayqueue.redis.internal;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

/**
 * Reading what scripts return and writing what they take: text, integers and scores as Redis sends them.
 */
public final class Replies {

	private Replies() {
	}

	/** A text in UTF-8, as a script argument. */
	public static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/** A number in decimal ASCII, as Redis reads an argument: one array, no {@code String} on the way. */
	public static byte[] bytes(long value) {
		if (value == Long.MIN_VALUE) {
			return bytes(Long.toString(value));
		}
		long rest = Math.abs(value);
		int length = (value < 0) ? 2 : 1;
		for (long left = rest / 10; left != 0; left /= 10) {
			length++;
		}
		byte[] digits = new byte[length];
		int first = (value < 0) ? 1 : 0;
		for (int i = length - 1; i >= first; i--) {
			digits[i] = (byte) ('0' + rest % 10);
			rest /= 10;
		}
		if (value < 0) {
			digits[0] = '-';
		}
		return digits;
	}

	/** A flag argument: {@code 1} or {@code 0}. */
	public static byte[] flag(boolean value) {
		return bytes(value ? "1" : "0");
	}

	static String text(Object value) {
		return new String((byte[]) value, StandardCharsets.UTF_8);
	}

	static byte @Nullable [] nullableBytes(@Nullable Object value) {
		return (value instanceof byte[] bytes) ? bytes : null;
	}

	/** A bulk string reply as text; {@code null} for a nil reply. */
	public static @Nullable String nullableText(@Nullable Object value) {
		byte[] bytes = nullableBytes(value);
		return (bytes != null) ? text(bytes) : null;
	}

	static long number(Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		return Long.parseLong(text(value));
	}

	/** An attempt count as stored; 0 if absent or unreadable. */
	static int attemptsOf(byte @Nullable [] stored) {
		try {
			return (stored != null) ? Integer.parseInt(text(stored)) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/** A due time as Redis keeps it (milliseconds, perhaps with a fraction), to the microsecond. */
	static Instant instantOf(Object score) {
		return Instant.EPOCH.plus(microsOf((byte[]) score), ChronoUnit.MICROS);
	}

	/**
	 * A score as Redis writes it (milliseconds, perhaps with a fraction; up to 17 significant digits in all), in
	 * microseconds, rounded half up. A claim reads one per message, so the plain form of a due time (digits, a point,
	 * digits) is read from the bytes; any other form (a sign, an exponent, more than 15 integer digits) goes through
	 * {@link BigDecimal}, which gives the same result.
	 * @param score the score's text
	 * @return the score in microseconds
	 */
	static long microsOf(byte[] score) {
		long millis = 0;
		int i = 0;
		int length = score.length;
		while (i < length && isDigit(score[i])) {
			millis = millis * 10 + (score[i++] - '0');
		}
		if (i == 0 || i > 15) {
			return exactMicrosOf(score);
		}
		long fraction = 0;
		if (i < length) {
			if (score[i++] != '.' || i == length) {
				return exactMicrosOf(score);
			}
			int digits = 0;
			boolean roundUp = false;
			for (; i < length; i++, digits++) {
				byte b = score[i];
				if (!isDigit(b)) {
					return exactMicrosOf(score);
				}
				if (digits < 3) {
					fraction = fraction * 10 + (b - '0');
				}
				else if (digits == 3) {
					roundUp = b >= '5';
				}
			}
			for (; digits < 3; digits++) {
				fraction *= 10;
			}
			if (roundUp) {
				fraction++;
			}
		}
		return millis * 1_000 + fraction;
	}

	private static boolean isDigit(byte b) {
		return b >= '0' && b <= '9';
	}

	private static long exactMicrosOf(byte[] score) {
		return new BigDecimal(text(score)).movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
	}

	/** A time in microseconds since the epoch. */
	static Instant instantOfMicros(long micros) {
		return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
	}

}
