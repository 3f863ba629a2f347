package io.github.delayqueue.listener;

/**
 * How late {@link java.util.concurrent.locks.LockSupport#parkNanos(long) parkNanos} wakes a thread on this machine:
 * a running estimate of a low quantile of the overshoot (the operating system's timer slack and the scheduler's
 * wake-up), so that a wait for a due time can park until that much before it and yield the processor for the rest. A
 * low quantile keeps that short: most wake-ups come after the estimate, and only those before it yield, for the
 * difference.
 * <p>
 * The estimate moves a fixed step per observation (stochastic approximation of a quantile): down by three quarters
 * of a step after a wake-up earlier than it, up by a quarter after a later one, so it settles where a quarter of the
 * wake-ups come earlier, and follows the machine as it changes. It stays between 0 and {@link #MAX_NANOS}. Threads
 * update it without a lock; a lost update only delays the estimate by one step.
 */
final class ParkOvershoot {

	/** The most the estimate grows to, and so the most a wait yields rather than parks. */
	static final long MAX_NANOS = 200_000;

	private static final long STEP_NANOS = 4_000;

	private volatile long nanos;

	/**
	 * The estimate: how long before a due time a wait should wake up.
	 * @return nanoseconds, between 0 and {@link #MAX_NANOS}
	 */
	long nanos() {
		return this.nanos;
	}

	/**
	 * Learns from one park that ran its full time.
	 * @param overshootNanos how long after its requested wake-up time the thread ran again (negative when the park
	 * ended early: an unpark or a spurious wake-up, which says nothing about the timer and is ignored)
	 */
	void observe(long overshootNanos) {
		if (overshootNanos < 0) {
			return;
		}
		long current = this.nanos;
		long next = (overshootNanos < current) ? current - STEP_NANOS * 3 / 4 : current + STEP_NANOS / 4;
		this.nanos = Math.max(0, Math.min(MAX_NANOS, next));
	}

}
