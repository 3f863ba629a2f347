package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import org.jspecify.annotations.Nullable;

/**
 * A listener's handler work that completes later (a handler that returns a future, a suspend function): it holds the
 * work until it completes, bounded by what is left of the handler timeout, counts it against the listener's room
 * meanwhile, and hands its outcome to a handler thread to settle (or to an I/O thread once the listener stops, since
 * no handler thread may start then). The {@link MessageRunner} and the {@link BatchRunner} start such work; the
 * {@link HandlerLoop} settles what completed.
 */
final class PendingWork {

	private final @Nullable Duration handlerTimeout;

	private final ReadyQueue ready;

	private final int concurrency;

	/** Messages whose handler's work has not completed (or whose outcome is not settled yet). */
	private final AtomicInteger inFlight = new AtomicInteger();

	/** The work in flight, to cancel on a stop that does not wait for it. */
	private final Set<CompletableFuture<?>> work = ConcurrentHashMap.newKeySet();

	/** Outcomes of completed work, waiting for a handler thread to settle them. */
	private final Queue<Runnable> completed = new ConcurrentLinkedQueue<>();

	private volatile boolean active;

	private volatile @Nullable Executor io;

	/**
	 * Creates the pending work of a listener.
	 * @param context what the listener's parts share
	 */
	PendingWork(ListenerContext context) {
		this.handlerTimeout = context.options().handlerTimeout();
		this.ready = context.ready();
		this.concurrency = context.options().asyncConcurrency();
	}

	/**
	 * The listener starts.
	 * @param io settles completed work once the listener stops
	 */
	void start(Executor io) {
		this.io = io;
		this.active = true;
	}

	/**
	 * The listener stops: work that completes from now on is settled on the container's I/O threads, since no handler
	 * thread may start.
	 */
	void stop() {
		this.active = false;
		Executor executor = this.io;
		if (executor != null && !this.completed.isEmpty()) {
			executor.execute(this::settleCompleted);
		}
	}

	/** Whether another message may start: a handler's work completing later counts until it has. */
	boolean hasRoom() {
		return this.inFlight.get() < this.concurrency;
	}

	/**
	 * Cancels the work still in flight (a stop that waited long enough): its messages are handed back by the stop,
	 * with the attempt counted, and its outcome, when it comes, changes nothing.
	 */
	void cancelInFlight() {
		this.work.forEach((each) -> each.cancel(true));
	}

	/** Messages whose handler's work completes later and has not yet. */
	int inFlight() {
		return this.inFlight.get();
	}

	/** Settles the outcomes of work that completed; on a handler thread (or an I/O thread once stopping). */
	void settleCompleted() {
		Runnable next;
		while ((next = this.completed.poll()) != null) {
			next.run();
		}
	}

	/**
	 * Holds handler work until it completes, bounded by what is left of the handler timeout (the timeout completes
	 * the watched copy with a {@link java.util.concurrent.TimeoutException}); the outcome is settled on a handler
	 * thread (or an I/O thread once stopping). The work counts against the listener's room until then.
	 * @param pending the work
	 * @param start when the handler was called ({@link System#nanoTime()})
	 * @param settle settles the outcome, given what the watched work completed with ({@code null}: success)
	 * @param refill runs after settling (claims more where messages are due)
	 * @return a future completing once the outcome is settled
	 */
	CompletableFuture<Void> await(CompletableFuture<?> pending, long start, Consumer<@Nullable Throwable> settle,
			Runnable refill) {
		this.inFlight.incrementAndGet();
		this.work.add(pending);
		CompletableFuture<Void> settled = new CompletableFuture<>();
		CompletableFuture<?> watched = pending;
		if (this.handlerTimeout != null) {
			long left = Math.max(1, this.handlerTimeout.toNanos() - (System.nanoTime() - start));
			watched = pending.copy().orTimeout(left, TimeUnit.NANOSECONDS);
		}
		watched.whenComplete((value, completion) -> {
			this.completed.add(() -> {
				try {
					settle.accept(completion);
				}
				finally {
					this.work.remove(pending);
					this.inFlight.decrementAndGet();
					settled.complete(null);
					// its lease has ended (or gone back): claim more if messages are due and half the share is free,
					// as a blocking handler's thread does when it returns (no message may start to ask for it)
					refill.run();
				}
			});
			Executor executor = this.io;
			if (!this.active && executor != null) {
				// stopping: no handler thread may start to settle it
				executor.execute(this::settleCompleted);
			}
			else {
				this.ready.roomFreed();
			}
		});
		return settled;
	}

	/**
	 * What completed work failed with.
	 * @param done the work, completed
	 * @return its failure (unwrapped), or {@code null} if it succeeded
	 */
	static @Nullable Throwable outcomeOf(CompletableFuture<?> done) {
		try {
			done.join();
			return null;
		}
		catch (CompletionException | CancellationException ex) {
			return ListenerInvoker.completionCause(ex);
		}
	}

}
