package io.github.delayqueue.support.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.springframework.util.Assert;

/**
 * Sends what threads submit at the same time as one call (group commit). Up to a few calls are in flight at once,
 * so the server always has work; a caller that finds a free slot sends at once, so a lone caller waits no longer
 * than a direct call; what arrives while every slot is in flight waits and then goes together in one call. Each
 * submitter gets back exactly its own results, or the exception of the call that carried its items. The callers'
 * threads do the sending: nothing runs in the background.
 *
 * @param <T> the type of the items
 * @param <R> the type of one item's result
 * @since 0.1.0
 */
public final class GroupCommit<T, R> {

	private final Function<List<T>, List<R>> call;

	private final int maxItems;

	private final int maxInFlight;

	private final Queue<Submission<T, R>> queue = new ConcurrentLinkedQueue<>();

	private final AtomicInteger senders = new AtomicInteger();

	/**
	 * Creates a group commit.
	 * @param call sends items and returns one result per item, in order
	 * @param maxItems the most items one call carries; a submission must hold fewer
	 * @param maxInFlight the most calls in flight at once
	 */
	public GroupCommit(Function<List<T>, List<R>> call, int maxItems, int maxInFlight) {
		Assert.isTrue(maxItems >= 2, "maxItems must be at least 2");
		Assert.isTrue(maxInFlight >= 1, "maxInFlight must be at least 1");
		this.call = call;
		this.maxItems = maxItems;
		this.maxInFlight = maxInFlight;
	}

	/**
	 * Sends items, together with whatever other threads submit meanwhile, and waits for their results.
	 * @param items fewer than {@code maxItems} items
	 * @return their results, in order
	 */
	public List<R> submit(List<T> items) {
		Assert.isTrue(items.size() < this.maxItems, "Too many items for one call");
		Submission<T, R> mine = new Submission<>(items);
		this.queue.add(mine);
		boolean sender;
		if (tryAcquire()) {
			sender = true;
			if (!mine.turn.complete(Boolean.FALSE)) {
				// a finishing sender passed its slot to this submission meanwhile: pass the second slot on
				handOver();
			}
		}
		else {
			sender = mine.awaitTurnOrResult();
		}
		if (sender) {
			// this thread sends what is queued until its own items are done, then hands its slot on
			try {
				while (!mine.result.isDone()) {
					if (!send()) {
						// its own items are in another sender's call
						mine.awaitResult();
					}
				}
			}
			finally {
				handOver();
			}
		}
		return mine.result();
	}

	private boolean tryAcquire() {
		int current;
		do {
			current = this.senders.get();
			if (current >= this.maxInFlight) {
				return false;
			}
		}
		while (!this.senders.compareAndSet(current, current + 1));
		return true;
	}

	/** Sends the queued submissions that fit in one call, and completes them; false if none was queued. */
	private boolean send() {
		List<Submission<T, R>> batch = new ArrayList<>();
		List<T> items = new ArrayList<>();
		Submission<T, R> next;
		// a submission holds fewer than maxItems items, so whatever is taken fits in one call
		while (items.size() < this.maxItems / 2 && (next = this.queue.poll()) != null) {
			batch.add(next);
			items.addAll(next.items);
		}
		if (batch.isEmpty()) {
			return false;
		}
		List<R> results;
		try {
			results = this.call.apply(items);
			if (results.size() != items.size()) {
				throw new IllegalStateException(
						"Group commit call returned " + results.size() + " results for " + items.size() + " items");
			}
		}
		catch (RuntimeException | Error ex) {
			batch.forEach((submission) -> submission.result.completeExceptionally(ex));
			return true;
		}
		int from = 0;
		for (Submission<T, R> submission : batch) {
			submission.result.complete(results.subList(from, from + submission.items.size()));
			from += submission.items.size();
		}
		return true;
	}

	/** Passes this sender's slot to the oldest submission waiting for one, or frees it if none waits. */
	private void handOver() {
		while (true) {
			for (Submission<T, R> waiting : this.queue) {
				if (waiting.turn.complete(Boolean.TRUE)) {
					return;
				}
			}
			this.senders.decrementAndGet();
			// a submission queued after the look saw every slot taken and waits: take a slot back for it. Only for
			// one that has no turn yet: the others queued are senders already, about to send themselves, and
			// retaking a slot for them would spin here until they have
			if (!anyWithoutTurn() || !tryAcquire()) {
				return;
			}
		}
	}

	private boolean anyWithoutTurn() {
		for (Submission<T, R> waiting : this.queue) {
			if (!waiting.turn.isDone()) {
				return true;
			}
		}
		return false;
	}

	/** One caller's items, its results, and its turn to send. */
	private static final class Submission<T, R> {

		private final List<T> items;

		private final CompletableFuture<List<R>> result = new CompletableFuture<>();

		private final CompletableFuture<Boolean> turn = new CompletableFuture<>();

		Submission(List<T> items) {
			this.items = items;
		}

		/** Waits until done or given a sender's slot; returns whether it was given one (then it must hand it on). */
		boolean awaitTurnOrResult() {
			try {
				CompletableFuture.anyOf(this.result, this.turn).join();
			}
			catch (CompletionException ex) {
				// failed: result() throws it
			}
			return Boolean.TRUE.equals(this.turn.getNow(Boolean.FALSE));
		}

		void awaitResult() {
			try {
				this.result.join();
			}
			catch (CompletionException ex) {
				// result() throws it
			}
		}

		List<R> result() {
			try {
				return this.result.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for a group commit", ex);
			}
			catch (ExecutionException ex) {
				if (ex.getCause() instanceof RuntimeException runtime) {
					throw runtime;
				}
				if (ex.getCause() instanceof Error error) {
					throw error;
				}
				throw new IllegalStateException(ex.getCause());
			}
		}

	}

}
