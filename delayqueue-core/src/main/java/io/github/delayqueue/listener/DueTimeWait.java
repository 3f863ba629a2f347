package io.github.delayqueue.listener;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * A partition's handler threads' waits for the due time of messages leased ahead of it (at most a claim's
 * lookahead, a few milliseconds). Only the partition's stop ends a wait early, and for good: the message is then
 * handed back unstarted. An interrupt does not end it (a handler may have left its thread's flag set); the flag is
 * kept for what runs next.
 */
final class DueTimeWait {

	private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();

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
			long left;
			while (!this.ended && (left = dueNanos - System.nanoTime()) > 0) {
				LockSupport.parkNanos(this, left);
				// cleared, so that the next park waits: set again below
				interrupted |= Thread.interrupted();
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
