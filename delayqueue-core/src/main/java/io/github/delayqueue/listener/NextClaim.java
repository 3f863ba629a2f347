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

	/** The most a claim is sent ahead of a due time (a slow round trip, say after a pause, is no guide). */
	private static final long MAX_LEAD_MICROS = 5_000;

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
	 * When to claim next, for a due time or lease deadline {@code delayMicros} after Redis ran this claim: a round
	 * trip early. Redis ran the claim about half a round trip before its reply came, and the next claim will run
	 * about half a round trip after it is sent, so a claim sent then runs when the message falls due rather than a
	 * round trip after. Never earlier than half the delay, so a claim that finds nothing due yet (it leases nothing
	 * early: Redis compares with its own clock) is followed by fewer and fewer, never by a spin.
	 * @param delayMicros the delay the claim returned
	 * @param roundTripNanos the claim's round trip (a lead of at most {@value #MAX_LEAD_MICROS} µs)
	 * @return the delay to the next claim, in microseconds
	 */
	static long delayMicros(long delayMicros, long roundTripNanos) {
		long roundTripMicros = Math.min(MAX_LEAD_MICROS, TimeUnit.NANOSECONDS.toMicros(Math.max(0, roundTripNanos)));
		long lead = Math.min(roundTripMicros, delayMicros / 2);
		return delayMicros - lead;
	}

}
