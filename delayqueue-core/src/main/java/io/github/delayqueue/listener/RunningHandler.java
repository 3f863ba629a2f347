package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.jspecify.annotations.Nullable;

/**
 * Watches one handler call against the listener's handler timeout. When the timeout passes while the handler still
 * runs, the timeout action runs (on the I/O executor: it ends the delivery as failed, if its outcome is still open),
 * and, if it did, the handler's thread is interrupted. The handler's thread calls {@link #finish()} when the call
 * returns: from then on it is never interrupted for this call, and an interrupt meant for it is cleared.
 */
final class RunningHandler {

	private final Thread thread = Thread.currentThread();

	private final @Nullable ScheduledFuture<?> timer;

	/** Guarded by this. */
	private boolean running = true;

	/** Guarded by this. */
	private boolean timedOut;

	/** Guarded by this: the timeout is deciding the delivery's outcome now. */
	private boolean firing;

	private RunningHandler(@Nullable ScheduledExecutorService timer, Executor io, Duration timeout,
			BooleanSupplier onTimeout) {
		this.timer = (timer != null) ? schedule(timer, io, timeout, onTimeout) : null;
	}

	/**
	 * Starts watching the calling thread's handler call; nothing to watch without a timeout.
	 * @param timeout the handler timeout, or {@code null}
	 * @param onTimeout ends the delivery as failed; returns whether it did (false: its outcome was known already)
	 * @return the watch, or {@code null} without a timeout
	 */
	static @Nullable RunningHandler watch(@Nullable Duration timeout, @Nullable ScheduledExecutorService timer,
			@Nullable Executor io, BooleanSupplier onTimeout) {
		if (timeout == null || timer == null || io == null) {
			return null;
		}
		return new RunningHandler(timer, io, timeout, onTimeout);
	}

	private @Nullable ScheduledFuture<?> schedule(ScheduledExecutorService timer, Executor io, Duration timeout,
			BooleanSupplier onTimeout) {
		try {
			return timer.schedule(() -> io.execute(() -> fire(onTimeout)), timeout.toNanos(),
					TimeUnit.NANOSECONDS);
		}
		catch (RejectedExecutionException ex) {
			// stopping: the handler runs to its end as it would without a timeout
			return null;
		}
	}

	private void fire(BooleanSupplier onTimeout) {
		synchronized (this) {
			if (!this.running) {
				return;
			}
			this.firing = true;
		}
		boolean ended = false;
		try {
			ended = onTimeout.getAsBoolean();
		}
		finally {
			synchronized (this) {
				this.firing = false;
				this.timedOut = ended;
				if (ended && this.running) {
					this.thread.interrupt();
				}
				notifyAll();
			}
		}
	}

	/**
	 * Called by the handler's thread when the call returned. If the timeout is ending the delivery at that moment,
	 * waits for it to decide, so that the delivery has exactly one outcome.
	 * @return whether the call timed out (its delivery was ended as failed)
	 */
	boolean finish() {
		ScheduledFuture<?> scheduled = this.timer;
		if (scheduled != null) {
			scheduled.cancel(false);
		}
		boolean interrupted = false;
		synchronized (this) {
			this.running = false;
			while (this.firing) {
				try {
					wait();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
			if (this.timedOut) {
				// the interrupt was meant for this call only
				Thread.interrupted();
			}
			else if (interrupted) {
				Thread.currentThread().interrupt();
			}
			return this.timedOut;
		}
	}

}
