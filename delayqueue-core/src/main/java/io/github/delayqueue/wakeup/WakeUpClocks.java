package io.github.delayqueue.wakeup;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.netty.util.HashedWheelTimer;
import org.jspecify.annotations.Nullable;

/**
 * The clocks the wake-ups run on, from start to stop: one Netty {@link HashedWheelTimer} for the application, whose
 * tick is the precision of a far wake-up, and a precise scheduled executor for the last tick or two before a due time,
 * which also runs the fallback poll. Each has a daemon thread of its own; nothing else runs on them.
 */
final class WakeUpClocks {

	private final Duration tick;

	private volatile @Nullable HashedWheelTimer wheel;

	private volatile @Nullable ScheduledExecutorService precise;

	private @Nullable ScheduledFuture<?> pollTask;

	WakeUpClocks(Duration tick) {
		this.tick = tick;
	}

	/** The wheel's tick, in nanoseconds. */
	long tickNanos() {
		return this.tick.toNanos();
	}

	/** The wheel timer; {@code null} unless started. */
	@Nullable HashedWheelTimer wheel() {
		return this.wheel;
	}

	/** The precise scheduled executor; {@code null} unless started. */
	@Nullable ScheduledExecutorService precise() {
		return this.precise;
	}

	/** Starts the wheel and the precise executor. */
	void start() {
		HashedWheelTimer timer = new HashedWheelTimer(threadFactory("delayqueue-timer"), this.tick.toMillis(),
				TimeUnit.MILLISECONDS, 512);
		this.wheel = timer;
		timer.start();
		this.precise = Executors.newSingleThreadScheduledExecutor(threadFactory("delayqueue-poll"));
	}

	/** Runs the fallback poll on the precise executor, every {@code interval} after the last poll ended. */
	void poll(Runnable poll, Duration interval) {
		ScheduledExecutorService executor = this.precise;
		if (executor != null) {
			long period = interval.toMillis();
			this.pollTask = executor.scheduleWithFixedDelay(poll, period, period, TimeUnit.MILLISECONDS);
		}
	}

	/** Stops the poll and the precise executor (wake-ups armed on it do not fire). */
	void stopPrecise() {
		if (this.pollTask != null) {
			this.pollTask.cancel(false);
		}
		ScheduledExecutorService executor = this.precise;
		if (executor != null) {
			executor.shutdownNow();
			this.precise = null;
		}
	}

	/** Stops the wheel (timeouts armed on it do not fire). */
	void stopWheel() {
		HashedWheelTimer timer = this.wheel;
		this.wheel = null;
		if (timer != null) {
			timer.stop();
		}
	}

	/** Daemon threads named {@code prefix-1}, {@code prefix-2}, ... */
	private static ThreadFactory threadFactory(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
