package io.github.delayqueue.listener;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads of a running container besides its handler threads: an I/O pool for claims, acknowledgement flushes
 * and lease extensions (short Redis calls), and one timer for lease extensions and acknowledgement retries.
 */
final class ContainerThreads {

	private final ExecutorService io;

	private final ScheduledExecutorService timer;

	ContainerThreads(String topic) {
		this.io = Executors.newCachedThreadPool(daemons("delayqueue-io-" + topic + "-"));
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, daemons("delayqueue-leases-" + topic + "-"));
		// handler timeouts are cancelled as handlers end: gone at once, not held (with their messages) until due
		timer.setRemoveOnCancelPolicy(true);
		this.timer = timer;
	}

	ExecutorService io() {
		return this.io;
	}

	ScheduledExecutorService timer() {
		return this.timer;
	}

	/** Stops the timer, and gives the I/O calls in progress a few seconds to end (hand-backs among them). */
	void shutdown() {
		this.timer.shutdownNow();
		this.io.shutdown();
		try {
			this.io.awaitTermination(5, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Stops both at once (a start that failed: nothing was handed to them to finish). */
	void shutdownNow() {
		this.timer.shutdownNow();
		this.io.shutdownNow();
	}

	private static ThreadFactory daemons(String prefix) {
		AtomicInteger count = new AtomicInteger();
		return (runnable) -> {
			Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		};
	}

}
