package io.github.delayqueue.redis.internal;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Locale;

import org.springframework.util.Assert;

/**
 * A place in a topic's waiting messages, ordered by due time, then id: where a listed page ended and the next one
 * starts. Messages scheduled or gone meanwhile do not move it.
 *
 * @param score the due time as Redis keeps it (milliseconds, perhaps with a fraction)
 * @param id the message id
 * @since 1.0.0
 */
public record Position(String score, String id) implements Comparable<Position> {

	/**
	 * Creates a position.
	 * @param score the due time as Redis keeps it: a decimal number
	 * @param id the message id
	 */
	public Position {
		Assert.isTrue(score != null && score.matches("-?\\d{1,19}(\\.\\d{1,12})?([eE][-+]?\\d{1,3})?"),
				() -> "Not a due score: " + score);
		Assert.isTrue(id != null && !id.isEmpty(), "Id must not be empty");
	}

	/** A due time as a score, to the microsecond. */
	static String score(Instant instant) {
		long micros = ChronoUnit.MICROS.between(Instant.EPOCH, instant);
		long millis = Math.floorDiv(micros, 1000);
		long fraction = Math.floorMod(micros, 1000);
		return (fraction == 0) ? Long.toString(millis) : String.format(Locale.ROOT, "%d.%03d", millis, fraction);
	}

	/**
	 * Compares two positions in the order Redis lists waiting messages: by due time, then by the id's bytes.
	 * @param other the other position
	 * @return negative if this one is listed first, 0 if they are the same, positive if after
	 */
	@Override
	public int compareTo(Position other) {
		int byScore = new BigDecimal(this.score).compareTo(new BigDecimal(other.score));
		return (byScore != 0) ? byScore : compareBytes(this.id, other.id);
	}

	private static int compareBytes(String a, String b) {
		return Arrays.compareUnsigned(Replies.bytes(a), Replies.bytes(b));
	}

}
