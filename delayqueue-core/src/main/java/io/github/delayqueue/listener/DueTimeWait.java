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
 * {@link ParkOvershoot}), and spins the rest: a park alone wakes a tenth of a millisecond or more late here. It
 * returns only once the monotonic clock has reached the due time.
 */
final class DueTimeWait {

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
			long now;
			while (!this.ended && dueNanos - (now = System.nanoTime()) > 0) {
				long wakeNanos = dueNanos - this.overshoot.nanos();
				if (wakeNanos - now > 0) {
					LockSupport.parkNanos(this, wakeNanos - now);
					this.overshoot.observe(System.nanoTime() - wakeNanos);
					// cleared, so that the next park waits: set again below
					interrupted |= Thread.interrupted();
				}
				else {
					Thread.onSpinWait();
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

	/** Whether a handler thread waits for a due time now (tests). */
	boolean isWaiting() {
		return !this.waiting.isEmpty();
	}

}
