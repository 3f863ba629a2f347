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
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskDecorator;

/**
 * The handler threads of one listener: at most {@code concurrency} run at once, each running the listener's worker
 * (which takes messages from the listener's {@link ReadyQueue} until none may start) and then ending. {@link #wake}
 * starts threads as messages arrive, as many as asked and slots are free; a wake that comes while every slot is
 * taken is not lost: a thread about to end sees it and runs the worker again. Handlers run on the container's
 * executor if it has one (a {@code TaskExecutor}, virtual threads), else on the listener's own pool of daemon
 * threads; a {@link TaskDecorator} wraps the handling of each message. It knows nothing of messages.
 */
final class HandlerThreads {

	private final String name;

	private final int concurrency;

	private final @Nullable Executor sharedExecutor;

	private final @Nullable TaskDecorator decorator;

	private final AtomicInteger busy = new AtomicInteger();

	/** Counts wakes: a thread that ends runs the worker again if one came since it last looked. */
	private final AtomicLong wakes = new AtomicLong();

	private final Set<Thread> running = ConcurrentHashMap.newKeySet();

	private final Object idleMonitor = new Object();

	private volatile @Nullable ThreadPoolExecutor ownPool;

	private volatile Runnable worker = () -> {
	};

	private volatile boolean open;

	/**
	 * Creates the handler threads of a listener.
	 * @param name names the threads of the listener's own pool (its topic)
	 * @param concurrency the most threads at once
	 * @param sharedExecutor the container's executor, or {@code null} for a pool of the listener's own
	 * @param decorator wraps the handling of each message, or {@code null}
	 */
	HandlerThreads(String name, int concurrency, @Nullable Executor sharedExecutor, @Nullable TaskDecorator decorator) {
		this.name = name;
		this.concurrency = concurrency;
		this.sharedExecutor = sharedExecutor;
		this.decorator = decorator;
	}

	/**
	 * Opens for handler runs (creating the listener's own pool if there is no shared executor).
	 * @param worker what each thread runs: it returns when no message may start
	 */
	synchronized void open(Runnable worker) {
		this.worker = worker;
		if (this.sharedExecutor == null) {
			AtomicInteger count = new AtomicInteger();
			ThreadPoolExecutor pool = new ThreadPoolExecutor(this.concurrency, this.concurrency, 60, TimeUnit.SECONDS,
					new LinkedBlockingQueue<>(), (runnable) -> {
						Thread thread = new Thread(runnable, "delayqueue-" + this.name + "-" + count.incrementAndGet());
						thread.setDaemon(true);
						return thread;
					});
			pool.allowCoreThreadTimeOut(true);
			this.ownPool = pool;
		}
		this.open = true;
	}

	/**
	 * Says that messages may start: starts up to {@code wanted} threads, as slots are free.
	 * @param wanted how many messages arrived (or may start again)
	 */
	void wake(int wanted) {
		this.wakes.incrementAndGet();
		for (int i = 0; i < wanted; i++) {
			if (!startOne()) {
				return;
			}
		}
	}

	private boolean startOne() {
		if (!this.open || !reserve()) {
			return false;
		}
		Executor executor = (this.sharedExecutor != null) ? this.sharedExecutor : this.ownPool;
		try {
			if (executor == null) {
				throw new RejectedExecutionException("Handler threads of '" + this.name + "' are closed");
			}
			executor.execute(this::run);
			return true;
		}
		catch (RejectedExecutionException ex) {
			free();
			return false;
		}
	}

	private boolean reserve() {
		while (true) {
			int current = this.busy.get();
			if (current >= this.concurrency) {
				return false;
			}
			if (this.busy.compareAndSet(current, current + 1)) {
				return true;
			}
		}
	}

	/** A thread's run: the worker, again while wakes came meanwhile; then its slot is freed. */
	private void run() {
		Thread thread = Thread.currentThread();
		this.running.add(thread);
		long seen;
		try {
			do {
				seen = this.wakes.get();
				this.worker.run();
			}
			while (this.open && this.wakes.get() != seen);
		}
		finally {
			this.running.remove(thread);
			free();
		}
		if (this.open && this.wakes.get() != seen) {
			// woken while ending, when no slot was free: this one is
			startOne();
		}
	}

	private void free() {
		if (this.busy.decrementAndGet() == 0) {
			synchronized (this.idleMonitor) {
				this.idleMonitor.notifyAll();
			}
		}
	}

	/** Threads running (or starting). */
	int busy() {
		return this.busy.get();
	}

	/**
	 * Wraps the handling of one message with the task decorator, if any; called on the handler thread.
	 * @param work the handling of one message
	 * @return what to run
	 */
	/** Whether a task decorator wraps each message's handling. */
	boolean isDecorated() {
		return this.decorator != null;
	}

	Runnable decorate(Runnable work) {
		return (this.decorator != null) ? this.decorator.decorate(work) : work;
	}

	/** Whether the calling thread is one of these handler threads. */
	boolean isHandlerThread() {
		return this.running.contains(Thread.currentThread());
	}

	/** Starts no more threads; running ones continue. */
	void close() {
		this.open = false;
	}

	/**
	 * Waits until no thread runs.
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

	/** Interrupts the threads still running (they keep their slots). */
	void interruptRunning() {
		this.running.forEach(Thread::interrupt);
	}

	/** Interrupts the threads still running, and lets the listener's own pool go. */
	synchronized void interruptAndRelease() {
		this.running.forEach(Thread::interrupt);
		ThreadPoolExecutor pool = this.ownPool;
		if (pool != null) {
			// a run still queued never starts: its slot is freed here
			this.ownPool = null;
			for (int i = pool.shutdownNow().size(); i > 0; i--) {
				free();
			}
		}
	}

}
