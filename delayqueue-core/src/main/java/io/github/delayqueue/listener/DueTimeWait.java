package io.github.delayqueue.listener;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * A partition's handler threads' waits for the due time of messages leased ahead of it (at most a claim's
 * lookahead, a few milliseconds). Only the partition's stop ends a wait early, and for good: the message is then
 * handed back unstarted. An interrupt does not end it (a handler may have left its thread's flag set); the flag is
 * kept for what runs next.
 * <p>
 * A thread parks until shortly before the due time, by what a park has been overshooting on this machine (see
 * {@link ParkOvershoot}), and then yields the processor until the due time comes: a park alone wakes about a tenth of
 * a millisecond late on a typical Linux machine. A wait that begins that close to its due time yields all of it.
 * Yielding rather than spinning leaves the core to any other thread that can run (a virtual thread's carrier to
 * other virtual threads). It returns only once the monotonic clock has reached the due time.
 */
final class DueTimeWait {

	/** Parks shorter than this say little about the timer, and are not learned from. */
	private static final long MIN_OBSERVED_PARK_NANOS = 50_000;

	private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();

	private final ParkOvershoot overshoot = new ParkOvershoot();

	private volatile boolean ended;

	/**
	 * Waits on this thread until the due time, unless the waits end first.
	 * @param dueNanos the due time on the {@link System#nanoTime()} clock
	 * @return whether the message may start now: its due time came (or had come before the call)
	 */
	boolean await(long dueNanos) {
		if (dueNanos - System.nanoTime() <= 0) {
			return true;
		}
		Thread current = Thread.currentThread();
		boolean interrupted = false;
		this.waiting.add(current);
		try {
			// read once: an estimate lowered by another thread meanwhile must not send a yielding thread back to park
			long wakeNanos = dueNanos - this.overshoot.nanos();
			long now;
			while (!this.ended && dueNanos - (now = System.nanoTime()) > 0) {
				long parkNanos = wakeNanos - now;
				if (parkNanos > 0) {
					LockSupport.parkNanos(this, parkNanos);
					if (parkNanos >= MIN_OBSERVED_PARK_NANOS) {
						this.overshoot.observe(System.nanoTime() - wakeNanos);
					}
					// cleared, so that the next park waits: set again below
					interrupted |= Thread.interrupted();
				}
				else {
					// gives the core to any other thread that can run (on a virtual thread, the carrier to another
					// virtual thread), and comes back at once if none can
					Thread.yield();
				}
			}
			return !this.ended;
		}
		finally {
			this.waiting.remove(current);
			if (interrupted) {
				current.interrupt();
			}
		}
	}

	/** Ends every wait now and to come: a message not due yet is not started. */
	void end() {
		this.ended = true;
		this.waiting.forEach(LockSupport::unpark);
	}

	/** How long before a due time a wait stops parking, as learned so far (tests). */
	long earlyWakeNanos() {
		return this.overshoot.nanos();
	}

	/** Whether a handler thread waits for a due time now (tests). */
	boolean isWaiting() {
		return !this.waiting.isEmpty();
	}

}
