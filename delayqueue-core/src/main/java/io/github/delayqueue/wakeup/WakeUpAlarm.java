package io.github.delayqueue.wakeup;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import org.jspecify.annotations.Nullable;

/**
 * One topic's alarm, armed for the earliest due time its consumer knows of: on the wheel while that is more than two
 * ticks ahead (one tick early), on the precise executor for the final approach. Firing runs the topic's callback, which
 * only hands work to another thread; a closed alarm never fires again.
 */
final class WakeUpAlarm {

	private final Runnable onDue;

	private final WakeUpClocks clocks;

	private @Nullable Timeout timeout;

	private @Nullable ScheduledFuture<?> finalApproach;

	private long deadlineNanos;

	private volatile boolean closed;

	WakeUpAlarm(Runnable onDue, WakeUpClocks clocks) {
		this.onDue = onDue;
		this.clocks = clocks;
	}

	/** Arms the alarm to fire after a delay, unless it is already armed to fire no later than that. */
	void armIn(long delay, TimeUnit unit) {
		if (this.closed) {
			return;
		}
		if (delay <= 0) {
			fire();
			return;
		}
		long delayNanos = unit.toNanos(delay);
		HashedWheelTimer wheel = this.clocks.wheel();
		ScheduledExecutorService precise = this.clocks.precise();
		if (wheel == null || precise == null) {
			return;
		}
		long tickNanos = this.clocks.tickNanos();
		long deadline = System.nanoTime() + delayNanos;
		synchronized (this) {
			// armed no later than asked, for a time still ahead (one that has come may be firing right now)
			if (isArmed() && this.deadlineNanos - deadline <= 0 && this.deadlineNanos - System.nanoTime() > 0) {
				return;
			}
			disarm();
			this.deadlineNanos = deadline;
			try {
				if (delayNanos <= 2 * tickNanos) {
					// the final approach: a wheel fires on a tick boundary, up to a tick late; this fires on time
					this.finalApproach = precise.schedule(this::fire, delayNanos, TimeUnit.NANOSECONDS);
				}
				else {
					// one tick early: the claim it triggers finds the message not yet due and re-arms for the
					// remaining time, which takes the final approach
					this.timeout = wheel.newTimeout((expired) -> fire(), delayNanos - tickNanos,
							TimeUnit.NANOSECONDS);
				}
			}
			catch (IllegalStateException | RejectedExecutionException ex) {
				// stopping
				disarm();
			}
		}
	}

	private boolean isArmed() {
		Timeout current = this.timeout;
		ScheduledFuture<?> approach = this.finalApproach;
		return (current != null && !current.isExpired() && !current.isCancelled())
				|| (approach != null && !approach.isDone());
	}

	private void disarm() {
		if (this.timeout != null) {
			this.timeout.cancel();
			this.timeout = null;
		}
		if (this.finalApproach != null) {
			this.finalApproach.cancel(false);
			this.finalApproach = null;
		}
	}

	/** Runs the callback now, unless closed. */
	void fire() {
		if (!this.closed) {
			this.onDue.run();
		}
	}

	/** Disarms the alarm for good. */
	void close() {
		this.closed = true;
		synchronized (this) {
			disarm();
		}
	}

}
