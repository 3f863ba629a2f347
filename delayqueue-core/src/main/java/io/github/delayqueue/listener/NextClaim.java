package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * When one partition's next claim runs: the requests for it (the trigger, the wake channel, a handler thread), the
 * claiming thread's own wait for a near one, which a request or a close ends at once, and how far ahead of a due
 * time a claim is sent. It holds flags and the waiting thread only; the {@link ClaimLoop} decides what to claim.
 */
final class NextClaim {

	/** The least lookahead of a claim, in microseconds. */
	private static final long MIN_LOOKAHEAD_MICROS = 1_000;

	/** The most lookahead of a claim, in microseconds (a slow round trip, say after a pause, is no guide). */
	private static final long MAX_LOOKAHEAD_MICROS = 5_000;

	private volatile boolean wanted;

	private volatile boolean open;

	/** The claiming thread while it waits for the next claim itself. */
	private volatile @Nullable Thread waiter;

	/** Takes requests from now on. */
	void open() {
		this.open = true;
	}

	/** Takes no more requests, drops the one waiting, and ends a wait at once. */
	void close() {
		this.open = false;
		this.wanted = false;
		wakeWaiter();
	}

	boolean isOpen() {
		return this.open;
	}

	/**
	 * Asks for a claim now; a claiming thread waiting for the next claim claims at once (it checks for requests after
	 * it says it waits).
	 * @return whether requests are taken (else this one waits for the next {@link #open})
	 */
	boolean request() {
		this.wanted = true;
		if (!this.open) {
			return false;
		}
		wakeWaiter();
		return true;
	}

	/** Asks for another claim from the claiming thread itself (no one waits then). */
	void requestAgain() {
		this.wanted = true;
	}

	/**
	 * Takes the request, if one was made while open.
	 * @return whether a claim is to run now
	 */
	boolean take() {
		if (this.open && this.wanted) {
			this.wanted = false;
			return true;
		}
		return false;
	}

	/** Whether a claim was asked for and is taken. */
	boolean isRequested() {
		return this.wanted && this.open;
	}

	/** Whether the claiming thread waits for the next claim now. */
	boolean isWaiting() {
		return this.waiter != null;
	}

	/**
	 * Waits on this thread until a claim is asked for, requests close, or the deadline passes (then a claim is asked
	 * for).
	 * @param deadlineNanos the deadline on {@link System#nanoTime()}'s clock
	 * @return {@code false} if the thread was interrupted before any of them
	 */
	boolean awaitUntil(long deadlineNanos) {
		this.waiter = Thread.currentThread();
		try {
			while (this.open && !this.wanted) {
				long left = deadlineNanos - System.nanoTime();
				if (left <= 0) {
					this.wanted = true;
					break;
				}
				if (Thread.currentThread().isInterrupted()) {
					return false;
				}
				LockSupport.parkNanos(this, left);
			}
			return true;
		}
		finally {
			this.waiter = null;
		}
	}

	private void wakeWaiter() {
		Thread current = this.waiter;
		if (current != null) {
			LockSupport.unpark(current);
		}
	}

	/**
	 * How soon a message may fall due and be leased by a claim now: two round trips, between
	 * {@value #MIN_LOOKAHEAD_MICROS} and {@value #MAX_LOOKAHEAD_MICROS} µs. A claim sent that long before a due time
	 * runs in Redis about a round trip after it is sent, so its lookahead still covers the due time, and its reply
	 * comes back before it: the handler thread starts the message at its due time rather than a round trip after.
	 * @param roundTripNanos the last claim's round trip
	 * @return the lookahead, in microseconds
	 */
	static long lookaheadMicros(long roundTripNanos) {
		long twoRoundTrips = 2 * TimeUnit.NANOSECONDS.toMicros(Math.max(0, roundTripNanos));
		return Math.max(MIN_LOOKAHEAD_MICROS, Math.min(MAX_LOOKAHEAD_MICROS, twoRoundTrips));
	}

	/**
	 * When to claim next, for a due time or lease deadline {@code delayMicros} after Redis ran this claim: the
	 * lookahead early, so that the claim leases the message ahead of its due time ({@link #lookaheadMicros}). Never
	 * earlier than half the delay, so claims that find nothing to lease yet (Redis compares with its own clock) are
	 * followed by fewer and fewer, never by a spin.
	 * @param delayMicros the delay the claim returned
	 * @param lookaheadMicros the lookahead of the next claim
	 * @return the delay to the next claim, in microseconds
	 */
	static long delayMicros(long delayMicros, long lookaheadMicros) {
		return delayMicros - Math.min(lookaheadMicros, delayMicros / 2);
	}

}
