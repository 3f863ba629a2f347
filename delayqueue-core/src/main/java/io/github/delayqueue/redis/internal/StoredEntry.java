package io.github.delayqueue.redis.internal;

import java.time.Instant;

import io.github.delayqueue.redis.Expiry;
import org.jspecify.annotations.Nullable;

/**
 * One message as the store finds it by id or lists it: where it is, and what is stored for it.
 *
 * @param id the message id
 * @param state where it is
 * @param at for a waiting message its due time, for a leased one the due time of the delivery, for a dead one when
 * it died
 * @param attempts the attempts counted so far
 * @param error the last error of a retrying or dead message, or {@code null}
 * @param message what is stored for it
 * @param expiry its expiry deadline, or {@code null}
 * @param suspect whether its last lease ran out without an outcome
 * @param score the due time as Redis keeps it (listed messages only, for {@link Position}), or {@code null}
 * @since 1.0.0
 */
public record StoredEntry(String id, State state, Instant at, int attempts, @Nullable String error,
		StoredMessage message, @Nullable Expiry expiry, boolean suspect, @Nullable String score) {

	/**
	 * An entry found by id.
	 * @param id the message id
	 * @param state where it is
	 * @param at its due time, or when it died
	 * @param attempts the attempts counted so far
	 * @param error the last error, or {@code null}
	 * @param message what is stored for it
	 * @param expiry its expiry deadline, or {@code null}
	 * @param suspect whether it is a suspect
	 */
	public StoredEntry(String id, State state, Instant at, int attempts, @Nullable String error,
			StoredMessage message, @Nullable Expiry expiry, boolean suspect) {
		this(id, state, at, attempts, error, message, expiry, suspect, null);
	}

	/**
	 * The position of this listed entry, from which the next page starts.
	 * @return the position
	 * @throws IllegalStateException if the entry was not listed
	 */
	public Position position() {
		if (this.score == null) {
			throw new IllegalStateException("Only a listed message has a position");
		}
		return new Position(this.score, this.id);
	}

	/** Where a message is. */
	public enum State {

		/** Waiting in the pending set: scheduled, or waiting for a retry. */
		WAITING,

		/** Leased to a consumer: its handler running, or waiting for one. */
		LEASED,

		/** A dead letter. */
		DEAD

	}

}
