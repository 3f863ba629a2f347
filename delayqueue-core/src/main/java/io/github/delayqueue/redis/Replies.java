package io.github.delayqueue.redis;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

/**
 * Reading what scripts return and writing what they take: text, integers and scores as Redis sends them.
 */
final class Replies {

	private Replies() {
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	static byte[] bytes(long value) {
		return bytes(Long.toString(value));
	}

	static byte[] flag(boolean value) {
		return bytes(value ? "1" : "0");
	}

	static String text(Object value) {
		return new String((byte[]) value, StandardCharsets.UTF_8);
	}

	static byte @Nullable [] nullableBytes(@Nullable Object value) {
		return (value instanceof byte[] bytes) ? bytes : null;
	}

	static @Nullable String nullableText(@Nullable Object value) {
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
		long micros = new BigDecimal(text(score)).movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
		return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
	}

	/** A time in microseconds since the epoch. */
	static Instant instantOfMicros(long micros) {
		return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
	}

}
