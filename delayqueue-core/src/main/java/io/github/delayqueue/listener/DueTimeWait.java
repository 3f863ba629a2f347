package io.github.delayqueue.listener;

import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * The wait for the due time of messages leased ahead of it (at most a claim's lookahead, a few milliseconds), by one
 * of a listener's handler threads at a time: the others, finding nothing due, end, so their slots stay free for
 * messages that are due (a waiting thread holds no slot another message could use: it takes the next message that is
 * due, whichever it is). An arrival {@linkplain #nudge() nudges} the waiting thread to look again; the listener's stop
 * ends the wait for good, and the message is then handed back unstarted. An interrupt does not end it (a handler may
 * have left its thread's flag set); the flag is kept for what runs next.
 * <p>
 * The thread parks until shortly before the due time, by what a park has been overshooting on this machine (see
 * {@link ParkOvershoot}), and then yields the processor until the due time comes: a park alone wakes about a tenth of
 * a millisecond late on a typical Linux machine. A wait that begins that close to its due time yields all of it.
 * Yielding rather than spinning leaves the core to any other thread that can run (a virtual thread's carrier to
 * other virtual threads).
 */
final class DueTimeWait {

	/** Parks shorter than this say little about the timer, and are not learned from. */
	private static final long MIN_OBSERVED_PARK_NANOS = 50_000;

	/** The thread waiting now, if any. */
	private final AtomicReference<@Nullable Thread> waiter = new AtomicReference<>();

	private final ParkOvershoot overshoot = new ParkOvershoot();

	private volatile boolean nudged;

	private volatile boolean ended;

	/**
	 * Waits on this thread until the due time, unless another thread waits already, or a nudge or the end comes
	 * first.
	 * @param dueNanos the due time on the {@link System#nanoTime()} clock
	 * @return {@code true} if the caller should look again for a message to start (the due time came, or something
	 * arrived); {@code false} if another thread waits already or the waits have ended
	 */
	boolean await(long dueNanos) {
		Thread current = Thread.currentThread();
		if (this.ended || !this.waiter.compareAndSet(null, current)) {
			return false;
		}
		this.nudged = false;
		boolean interrupted = false;
		try {
			// read once: an estimate lowered by another thread meanwhile must not send a yielding thread back to park
			long wakeNanos = dueNanos - this.overshoot.nanos();
			long now;
			while (!this.ended && !this.nudged && dueNanos - (now = System.nanoTime()) > 0) {
				long parkNanos = wakeNanos - now;
				if (parkNanos > 0) {
					LockSupport.parkNanos(this, parkNanos);
					if (parkNanos >= MIN_OBSERVED_PARK_NANOS && !this.nudged) {
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
			this.waiter.set(null);
			if (interrupted) {
				current.interrupt();
			}
		}
	}

	/** Wakes the waiting thread, if any, to look again (a message arrived, or what it waited for was taken out). */
	void nudge() {
		Thread current = this.waiter.get();
		if (current != null) {
			this.nudged = true;
			LockSupport.unpark(current);
		}
	}

	/** Ends the wait now and every wait to come: a message not due yet is not started. */
	void end() {
		this.ended = true;
		Thread current = this.waiter.get();
		if (current != null) {
			LockSupport.unpark(current);
		}
	}

	/** How long before a due time a wait stops parking, as learned so far (tests). */
	long earlyWakeNanos() {
		return this.overshoot.nanos();
	}

	/** Whether a handler thread waits for a due time now (tests). */
	boolean isWaiting() {
		return this.waiter.get() != null;
	}

}
