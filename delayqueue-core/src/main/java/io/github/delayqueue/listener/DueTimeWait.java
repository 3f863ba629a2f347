package io.github.delayqueue.listener;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The handler threads' wait for the due time of a message leased ahead of it (at most a claim's lookahead, a few
 * milliseconds), which a stop ends at once: the message is then handed back unstarted.
 */
final class DueTimeWait {

	private final Set<Thread> waiting = ConcurrentHashMap.newKeySet();

	private volatile boolean open = true;

	/**
	 * Waits on this thread until the due time, unless the waits are ended or the thread is interrupted first.
	 * @param dueNanos the due time on the {@link System#nanoTime()} clock
	 * @return whether the message may start now: its due time came (or had come), the waits were not ended and the
	 * thread was not interrupted
	 */
	boolean await(long dueNanos) {
		if (dueNanos - System.nanoTime() <= 0) {
			return true;
		}
		Thread current = Thread.currentThread();
		this.waiting.add(current);
		try {
			long left;
			while (this.open && !current.isInterrupted() && (left = dueNanos - System.nanoTime()) > 0) {
				LockSupport.parkNanos(this, left);
			}
			return this.open && !current.isInterrupted();
		}
		finally {
			this.waiting.remove(current);
		}
	}

	/** Ends every wait now and to come: a message not due yet is not started. */
	void end() {
		this.open = false;
		this.waiting.forEach(LockSupport::unpark);
	}

	/** Lets waits run to their due time again (a restart). */
	void reopen() {
		this.open = true;
	}

	/** Whether a handler thread waits for a due time now (tests). */
	boolean isWaiting() {
		return !this.waiting.isEmpty();
	}

}
