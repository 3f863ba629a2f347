package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.NewMessage;
import org.jspecify.annotations.Nullable;

/**
 * The forms the scripts take and return of the parts of a message that {@code io.github.delayqueue.redis} defines
 * (a {@link NewMessage}, its {@link DueTime} and {@link Expiry}, public there for
 * {@code RedisDelayedQueue.storeTick}): kept here, beside the operations that send and read them.
 */
final class StoredForms {

	private StoredForms() {
	}

	/**
	 * The stored form of a message.
	 * @param message the message
	 * @return its envelope
	 */
	static Envelope envelope(NewMessage message) {
		return new Envelope(message.createdAt(), message.headers(), message.payload(), message.group(),
				message.priority());
	}

	/**
	 * How a script is told what a due time's argument is: {@code d} for a delay, {@code a} for an absolute time.
	 * @param due the due time
	 * @return its kind
	 */
	static String kind(DueTime due) {
		return due.relative() ? "d" : "a";
	}

	/**
	 * What a script is sent: for a delay counted from a moment, what is left of it at {@code nowNanos} (never below
	 * zero; the time passed is rounded down to the microsecond, so what is left is rounded up); else the value.
	 * @param due the due time
	 * @param nowNanos the {@link System#nanoTime()} of the call
	 * @return the argument
	 */
	static long argument(DueTime due, long nowNanos) {
		if (!due.relative() || due.sinceNanos() == DueTime.WHEN_SENT) {
			return due.value();
		}
		long passedMicros = Math.max(0, nowNanos - due.sinceNanos()) / 1_000;
		return Math.max(0, due.value() - passedMicros);
	}

	/**
	 * The stored form of an expiry: {@code <deadline ms>:<d|x>}.
	 * @param expiry the expiry
	 * @return its stored form
	 */
	static String encode(Expiry expiry) {
		return Math.max(0, expiry.deadline().toEpochMilli()) + (expiry.discard() ? ":x" : ":d");
	}

	/**
	 * Reads an expiry's stored form as a script returns it; {@code null} if absent (no reply, or an empty one: most
	 * messages have no expiry, and read so they cost no {@code String}) or unreadable.
	 * @param reply the reply
	 * @return the expiry, or {@code null}
	 */
	static @Nullable Expiry expiry(byte @Nullable [] reply) {
		if (reply == null || reply.length == 0) {
			return null;
		}
		String stored = new String(reply, StandardCharsets.UTF_8);
		int colon = stored.indexOf(':');
		try {
			long millis = Long.parseLong(stored.substring(0, (colon > 0) ? colon : stored.length()));
			return new Expiry(Instant.ofEpochMilli(millis), stored.endsWith(":x"));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

}
