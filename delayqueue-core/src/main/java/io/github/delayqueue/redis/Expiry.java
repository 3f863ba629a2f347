package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A message's expiry deadline as the store keeps it: a time on the Redis clock after which the message is not
 * delivered, and whether it is then dead-lettered or dropped.
 *
 * @param deadline the deadline, to the millisecond (a fraction rounds down: never delivered after it)
 * @param discard {@code true} to drop it, {@code false} to move it to the dead letters
 * @since 0.3.0
 */
public record Expiry(Instant deadline, boolean discard) {

	/**
	 * Whether the deadline has passed at a time.
	 * @param now the time, on the Redis clock
	 * @return {@code true} if the message must not be delivered at that time
	 */
	public boolean isPassed(Instant now) {
		return !now.isBefore(this.deadline);
	}

	/** The stored form: {@code <deadline ms>:<d|x>}. */
	String encode() {
		return Math.max(0, this.deadline.toEpochMilli()) + (this.discard ? ":x" : ":d");
	}

	/**
	 * Reads the stored form as a script returns it; {@code null} if absent (no reply, or an empty one: most messages
	 * have no expiry, and read so they cost no {@code String}) or unreadable.
	 */
	static @Nullable Expiry decode(byte @Nullable [] reply) {
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
