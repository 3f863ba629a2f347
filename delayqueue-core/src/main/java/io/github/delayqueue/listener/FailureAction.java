package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

import io.github.delayqueue.ScheduleRequest;

/**
 * What becomes of a message whose handler threw, as a {@link DeliveryErrorHandler} decides.
 *
 * @see DeliveryErrorHandler
 * @since 0.2.0
 */
public final class FailureAction {

	private static final FailureAction DEAD_LETTER = new FailureAction(Kind.DEAD_LETTER, Duration.ZERO);

	private static final FailureAction ACKNOWLEDGE = new FailureAction(Kind.ACKNOWLEDGE, Duration.ZERO);

	private final Kind kind;

	private final Duration delay;

	private FailureAction(Kind kind, Duration delay) {
		this.kind = kind;
		this.delay = delay;
	}

	/**
	 * Handle the message again after a delay (the failure is recorded as its last error). The store still buries
	 * a message once it has started {@code max-attempts} times.
	 * @param delay the delay, zero or more, at most what a schedule call accepts (applied to the millisecond)
	 * @return the action
	 */
	public static FailureAction retryIn(Duration delay) {
		ScheduleRequest.validateDelay(delay);
		return new FailureAction(Kind.RETRY, delay);
	}

	/**
	 * Move the message to the dead letters, with the failure as its error.
	 * @return the action
	 */
	public static FailureAction deadLetter() {
		return DEAD_LETTER;
	}

	/**
	 * Delete the message as if its handler had returned: the error handler dealt with it (sent it elsewhere, ran a
	 * fallback).
	 * @return the action
	 */
	public static FailureAction acknowledge() {
		return ACKNOWLEDGE;
	}

	/**
	 * What to do.
	 * @return the kind
	 */
	public Kind kind() {
		return this.kind;
	}

	/**
	 * The delay before the next attempt, for {@link Kind#RETRY}; zero for the other kinds (which have none).
	 * @return the delay
	 */
	public Duration delay() {
		return this.delay;
	}

	@Override
	public boolean equals(Object other) {
		return this == other || (other instanceof FailureAction action && this.kind == action.kind
				&& this.delay.equals(action.delay));
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.kind, this.delay);
	}

	@Override
	public String toString() {
		return (this.kind == Kind.RETRY) ? "retry in " + this.delay : this.kind.name().toLowerCase(Locale.ROOT);
	}

	/** The kinds of action. */
	public enum Kind {

		/** Handle it again after a delay. */
		RETRY,

		/** Move it to the dead letters. */
		DEAD_LETTER,

		/** Delete it: dealt with. */
		ACKNOWLEDGE

	}

}
