package io.github.delayqueue.support.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.springframework.util.Assert;

/**
 * {@link GroupCommit} for callers that do not wait: what is submitted while a call is in flight goes out together,
 * in one call, when a call in flight completes. A submission made while nothing is in flight is sent at once, on the
 * submitting thread, so a lone caller waits no longer than a direct call; one made while a call is in flight waits
 * for it, so that a caller with many calls outstanding (from one thread or many) sends them in few calls rather than
 * one each. When a call completes, what waits is sent in up to a few calls at once, so the server always has work. The call itself must not block: it starts the work and returns its stage. Each
 * submission's future completes with exactly its own results, or the exception of the call that carried its items;
 * it completes on the thread that completed the call (a client's I/O thread, typically), and later batches are sent
 * from there: nothing runs in the background, and no thread waits.
 *
 * @param <T> the type of the items
 * @param <R> the type of one item's result
 * @since 1.0.0
 */
public final class AsyncGroupCommit<T, R> {

	private final Function<List<T>, ? extends CompletionStage<List<R>>> call;

	private final int maxItems;

	private final int maxInFlight;

	private final Queue<Submission<T, R>> queue = new ConcurrentLinkedQueue<>();

	private final AtomicInteger inFlight = new AtomicInteger();

	/**
	 * Creates a group commit.
	 * @param call starts sending items and returns a stage of one result per item, in order; it must not block
	 * @param maxItems the most items one call carries; a submission must hold fewer
	 * @param maxInFlight the most calls in flight at once
	 */
	public AsyncGroupCommit(Function<List<T>, ? extends CompletionStage<List<R>>> call, int maxItems,
			int maxInFlight) {
		Assert.notNull(call, "Call must not be null");
		Assert.isTrue(maxItems >= 2, "maxItems must be at least 2");
		Assert.isTrue(maxInFlight >= 1, "maxInFlight must be at least 1");
		this.call = call;
		this.maxItems = maxItems;
		this.maxInFlight = maxInFlight;
	}

	/**
	 * Sends items now if a slot is free, else with whatever else is submitted before one is.
	 * @param items fewer than {@code maxItems} items
	 * @return their results, in order, once the call that carried them completed
	 */
	public CompletableFuture<List<R>> submit(List<T> items) {
		Assert.isTrue(items.size() < this.maxItems, "Too many items for one call");
		Submission<T, R> mine = new Submission<>(items);
		this.queue.add(mine);
		// with a call in flight, its completion sends this (it drains after freeing its slot, and this was queued
		// before the slot count was read)
		if (this.inFlight.get() == 0) {
			drain();
		}
		return mine.result;
	}

	/** How many calls are in flight now (for tests and metrics). */
	public int inFlight() {
		return this.inFlight.get();
	}

	/**
	 * Sends what is queued while slots are free. Every slot freed and every submission queued is followed by this,
	 * so nothing queued is left behind while a slot is free.
	 */
	private void drain() {
		while (!this.queue.isEmpty() && tryAcquire()) {
			List<Submission<T, R>> batch = new ArrayList<>();
			List<T> items = new ArrayList<>();
			Submission<T, R> next;
			// a submission holds fewer than maxItems items, so whatever is taken fits in one call
			while (items.size() < this.maxItems / 2 && (next = this.queue.poll()) != null) {
				batch.add(next);
				items.addAll(next.items);
			}
			if (batch.isEmpty()) {
				this.inFlight.decrementAndGet();
				continue;
			}
			CompletableFuture<List<R>> sent = start(items);
			if (sent.isDone()) {
				// failed at once (or answered at once): settle here rather than recurse through a callback
				settle(batch, items.size(), sent);
				this.inFlight.decrementAndGet();
			}
			else {
				sent.whenComplete((results, failure) -> {
					settle(batch, items.size(), sent);
					this.inFlight.decrementAndGet();
					drain();
				});
			}
		}
	}

	private CompletableFuture<List<R>> start(List<T> items) {
		try {
			return this.call.apply(items).toCompletableFuture();
		}
		catch (RuntimeException | Error ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	private void settle(List<Submission<T, R>> batch, int size, CompletableFuture<List<R>> sent) {
		List<R> results;
		try {
			results = sent.join();
		}
		catch (RuntimeException | Error ex) {
			Throwable cause = (ex.getCause() != null && ex instanceof java.util.concurrent.CompletionException)
					? ex.getCause() : ex;
			batch.forEach((submission) -> submission.result.completeExceptionally(cause));
			return;
		}
		if (results == null || results.size() != size) {
			IllegalStateException wrong = new IllegalStateException("Group commit call returned "
					+ ((results != null) ? results.size() : null) + " results for " + size + " items");
			batch.forEach((submission) -> submission.result.completeExceptionally(wrong));
			return;
		}
		int from = 0;
		for (Submission<T, R> submission : batch) {
			submission.result.complete(results.subList(from, from + submission.items.size()));
			from += submission.items.size();
		}
	}

	private boolean tryAcquire() {
		int current;
		do {
			current = this.inFlight.get();
			if (current >= this.maxInFlight) {
				return false;
			}
		}
		while (!this.inFlight.compareAndSet(current, current + 1));
		return true;
	}

	/** One caller's items and its results. */
	private static final class Submission<T, R> {

		private final List<T> items;

		private final CompletableFuture<List<R>> result = new CompletableFuture<>();

		Submission(List<T> items) {
			this.items = items;
		}

	}

}
