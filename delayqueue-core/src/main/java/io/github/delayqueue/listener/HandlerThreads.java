package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskDecorator;

/**
 * The handler threads of one topic: at most {@code concurrency} handlers run at once. A slot is reserved before a
 * message is leased for it and freed when its handler thread is done, so the topic never leases more than it can
 * run. Handlers run on the container's executor if it has one (a {@code TaskExecutor}, virtual threads), else on
 * the topic's own pool of daemon threads; a {@link TaskDecorator} wraps the handling of each message.
 */
final class HandlerThreads {

	private final String topic;

	private final int concurrency;

	private final @Nullable Executor sharedExecutor;

	private final @Nullable TaskDecorator decorator;

	private final Runnable onFreed;

	private final AtomicInteger busy = new AtomicInteger();

	private final Set<Thread> running = ConcurrentHashMap.newKeySet();

	private final Object idleMonitor = new Object();

	private volatile @Nullable ThreadPoolExecutor ownPool;

	private volatile boolean open;

	/**
	 * Creates the handler threads of a topic.
	 * @param sharedExecutor the container's executor, or {@code null} for a pool of the topic's own
	 * @param onFreed runs after a slot is freed (a claim may now lease a message for it)
	 */
	HandlerThreads(String topic, int concurrency, @Nullable Executor sharedExecutor, @Nullable TaskDecorator decorator,
			Runnable onFreed) {
		this.topic = topic;
		this.concurrency = concurrency;
		this.sharedExecutor = sharedExecutor;
		this.decorator = decorator;
		this.onFreed = onFreed;
	}

	/** Opens for handler runs (creating the topic's own pool if there is no shared executor). */
	synchronized void open() {
		if (this.sharedExecutor == null) {
			AtomicInteger count = new AtomicInteger();
			ThreadPoolExecutor pool = new ThreadPoolExecutor(this.concurrency, this.concurrency, 60, TimeUnit.SECONDS,
					new LinkedBlockingQueue<>(), (runnable) -> {
						Thread thread = new Thread(runnable, "delayqueue-" + this.topic + "-" + count.incrementAndGet());
						thread.setDaemon(true);
						return thread;
					});
			pool.allowCoreThreadTimeOut(true);
			this.ownPool = pool;
		}
		this.open = true;
	}

	/**
	 * Reserves up to {@code wanted} free slots.
	 * @return how many were reserved
	 */
	int reserve(int wanted) {
		while (true) {
			int current = this.busy.get();
			int granted = Math.max(0, Math.min(wanted, this.concurrency - current));
			if (granted == 0 || this.busy.compareAndSet(current, current + granted)) {
				return granted;
			}
		}
	}

	/** Frees reserved slots that will not run a handler. */
	void release(int slots) {
		if (slots <= 0) {
			return;
		}
		if (this.busy.addAndGet(-slots) == 0) {
			synchronized (this.idleMonitor) {
				this.idleMonitor.notifyAll();
			}
		}
		this.onFreed.run();
	}

	/** Slots taken: handlers running, or reserved for messages being leased. */
	int busy() {
		return this.busy.get();
	}

	boolean hasFreeSlot() {
		return this.busy.get() < this.concurrency;
	}

	/**
	 * Runs a handler task in a reserved slot; the slot is freed when the task ends.
	 * @return {@code false} if closed or the executor refused it (the slot is freed)
	 */
	boolean execute(Runnable task) {
		Runnable tracked = () -> {
			Thread thread = Thread.currentThread();
			this.running.add(thread);
			try {
				task.run();
			}
			finally {
				this.running.remove(thread);
				release(1);
			}
		};
		Executor executor = (this.sharedExecutor != null) ? this.sharedExecutor : this.ownPool;
		try {
			if (!this.open || executor == null) {
				throw new RejectedExecutionException("Handler threads of topic '" + this.topic + "' are closed");
			}
			executor.execute(tracked);
			return true;
		}
		catch (RejectedExecutionException ex) {
			release(1);
			return false;
		}
	}

	/**
	 * Wraps the handling of one message with the task decorator, if any; called on the handler thread.
	 * @param work the handling of one message
	 * @return what to run
	 */
	Runnable decorate(Runnable work) {
		return (this.decorator != null) ? this.decorator.decorate(work) : work;
	}

	/** Whether the calling thread is running one of these handlers. */
	boolean isHandlerThread() {
		return this.running.contains(Thread.currentThread());
	}

	/** Refuses new handler runs; running ones continue. */
	void close() {
		this.open = false;
	}

	/**
	 * Waits until no slot is taken.
	 * @return {@code true} if idle within the timeout
	 */
	boolean awaitIdle(Duration timeout) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		synchronized (this.idleMonitor) {
			while (this.busy.get() > 0) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return false;
				}
				TimeUnit.NANOSECONDS.timedWait(this.idleMonitor, left);
			}
		}
		return true;
	}

	/** Interrupts the handlers still running (they keep their slots). */
	void interruptRunning() {
		this.running.forEach(Thread::interrupt);
	}

	/** Interrupts the handlers still running, and lets the topic's own pool go. */
	synchronized void interruptAndRelease() {
		this.running.forEach(Thread::interrupt);
		ThreadPoolExecutor pool = this.ownPool;
		if (pool != null) {
			// a task still queued never runs: its slot is freed here (its lease was handed back already)
			this.ownPool = null;
			release(pool.shutdownNow().size());
		}
	}

}
