package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.redis.internal.Lease;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a batch of messages on one handler thread with one call of a batch listener, and settles each message's
 * outcome: a message starts only if its lease cannot have run out and its deadline has not passed (else it goes back,
 * as a single message would); one whose payload cannot be read fails on its own; the others go to the handler
 * together, watched by the handler timeout. A success acknowledges them all through their partitions'
 * {@link Acknowledger}s; a {@link BatchListenerFailedException} acknowledges those before the message it names, fails
 * that one and hands the rest back uncharged; any other failure fails each, through the listener's
 * {@link DeliveryErrorHandler}. Whoever takes a lease out of its {@link LeaseKeeper} first decides its outcome, once.
 * The async bookkeeping (work in flight, the room it holds) is the listener's {@link PendingWork}.
 */
final class BatchRunner {

	private static final Logger logger = LoggerFactory.getLogger(BatchRunner.class);

	private final String topic;

	private final ListenerOptions options;

	private final DelayQueueMonitor monitor;

	private final BatchInvoker invoker;

	private final Prefetch prefetch;

	private final FailedDeliveries failures;

	private final CrashIsolation isolation;

	private final MessageRunner runner;

	private final List<Partition> partitions;

	BatchRunner(ListenerContext context, BatchInvoker invoker, MessageRunner runner,
			List<Partition> partitions) {
		this.topic = context.topic();
		this.options = context.options();
		this.monitor = context.monitor();
		this.invoker = invoker;
		this.prefetch = context.prefetch();
		this.failures = new FailedDeliveries(context);
		this.isolation = context.isolation();
		this.runner = runner;
		this.partitions = partitions;
	}

	/**
	 * Handles a batch and settles the outcomes; on the handler thread, inside the task decorator. A handler whose work
	 * completes later is only started: the outcomes are settled when the work completes.
	 * @param deliveries the messages, in claim order (a suspect comes alone)
	 * @return {@code null} if every outcome is settled; else a future completing once they are
	 */
	@Nullable CompletableFuture<Void> run(List<Delivery> deliveries) {
		List<Delivery> started = new ArrayList<>(deliveries.size());
		for (Delivery delivery : deliveries) {
			if (this.runner.mayStart(delivery, partition(delivery).leases())) {
				started.add(delivery);
			}
			else {
				ended(delivery);
			}
		}
		if (started.isEmpty()) {
			return null;
		}
		BatchInvoker.Batch batch = this.invoker.read(started);
		for (BatchInvoker.Unreadable unreadable : batch.unreadable()) {
			this.prefetch.completed();
			fail(unreadable.delivery(), unreadable.message(), unreadable.failure(), 0);
			ended(unreadable.delivery());
		}
		if (batch.readable().isEmpty()) {
			return null;
		}
		long start = System.nanoTime();
		RunningHandler watch = this.runner.watch(() -> timedOut(batch, start));
		BatchInvoker.Call call = this.invoker.call(batch);
		CompletableFuture<?> pending = call.pending();
		if (watch != null && watch.finish()) {
			// ended as failed by the timeout already; an Error the handler died of after it still goes up
			batch.readable().forEach((each) -> this.prefetch.completed());
			if (pending != null) {
				pending.cancel(true);
			}
			MessageRunner.rethrowIfFatal(call.failure());
			return null;
		}
		if (pending != null) {
			return this.runner.pending().await(pending, start, (completion) -> settleAsync(batch, pending, completion, start),
					() -> this.partitions.forEach(Partition::refill));
		}
		settle(batch, call.failure(), start);
		return null;
	}

	/** Settles the outcome of a batch call. */
	private void settle(BatchInvoker.Batch batch, @Nullable Throwable failure, long start) {
		long duration = System.nanoTime() - start;
		List<Delivery> readable = batch.readable();
		readable.forEach((each) -> this.prefetch.completed());
		if (failure == null) {
			for (Delivery delivery : readable) {
				acknowledge(delivery, duration);
			}
			return;
		}
		int failed = failedIndex(failure, batch.messages());
		if (failed < 0) {
			for (int i = 0; i < readable.size(); i++) {
				fail(readable.get(i), batch.messages().get(i), failure, duration);
			}
		}
		else {
			Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
			for (int i = 0; i < failed; i++) {
				acknowledge(readable.get(i), duration);
			}
			fail(readable.get(failed), batch.messages().get(failed), cause, duration);
			// not handled: back to the queue at once, the attempt not counted (one call per partition)
			List<List<Lease>> back = new ArrayList<>(this.partitions.size());
			this.partitions.forEach((each) -> back.add(new ArrayList<>()));
			for (Delivery delivery : readable.subList(failed + 1, readable.size())) {
				back.get(delivery.partition()).add(delivery.message().lease());
			}
			for (Partition partition : this.partitions) {
				if (!back.get(partition.index()).isEmpty()) {
					partition.handBack(back.get(partition.index()));
				}
			}
		}
		MessageRunner.rethrowIfFatal(failure);
	}

	/** The position in the batch of the message a {@link BatchListenerFailedException} names; else -1. */
	private static int failedIndex(Throwable failure, List<DeliveredMessage> messages) {
		return (failure instanceof BatchListenerFailedException named) ? named.indexIn(messages) : -1;
	}

	private void acknowledge(Delivery delivery, long duration) {
		Partition partition = partition(delivery);
		Lease lease = delivery.message().lease();
		if (partition.leases().take(lease)) {
			partition.acknowledger().acknowledge(lease, delivery.suspect());
			report(delivery, DelayQueueMonitor.Outcome.SUCCESS, duration, null);
		}
	}

	private void fail(Delivery delivery, DeliveredMessage message, Throwable failure, long duration) {
		Partition partition = partition(delivery);
		Lease lease = delivery.message().lease();
		FailureAction action = this.failures.decide(message, failure);
		if (partition.leases().take(lease)) {
			report(delivery, this.failures.apply(partition, message, lease, failure, action), duration, failure);
		}
	}

	private void settleAsync(BatchInvoker.Batch batch, CompletableFuture<?> pending, @Nullable Throwable completion,
			long start) {
		Throwable failure = (completion != null) ? ListenerInvoker.completionCause(completion) : null;
		if (failure instanceof TimeoutException && pending.isDone()) {
			// the work completed as the timeout came: its own outcome counts
			failure = PendingWork.outcomeOf(pending);
		}
		if (failure instanceof TimeoutException && !pending.isDone()) {
			failure = timeoutFailure(batch);
			pending.cancel(true);
			logger.warn("{} (in a batch of {}); its work is cancelled and its messages attempted again (or "
					+ "dead-lettered)", failure.getMessage(), batch.readable().size());
			this.runner.monitorTimedOut();
		}
		else if (failure instanceof CancellationException) {
			CancellationException cancelled = new CancellationException("Topic '" + this.topic + "': the work for a "
					+ "batch of " + batch.readable().size() + " message(s) was cancelled");
			cancelled.initCause(failure);
			failure = cancelled;
		}
		try {
			settle(batch, failure, start);
		}
		catch (Error ex) {
			logger.error("Topic '{}': the work of a batch of {} message(s) failed with an Error", this.topic,
					batch.readable().size(), ex);
		}
	}

	private HandlerTimeoutException timeoutFailure(BatchInvoker.Batch batch) {
		Duration timeout = this.options.handlerTimeout();
		// named by the batch's first message; the log says how many the call had
		return new HandlerTimeoutException(this.topic, batch.messages().get(0).id(),
				(timeout != null) ? timeout : Duration.ZERO);
	}

	/**
	 * The batch call ran beyond the handler timeout: ends each delivery still open as failed (retry or dead letter,
	 * the attempt counted); the handler thread is then interrupted.
	 * @return whether any delivery was ended
	 */
	private boolean timedOut(BatchInvoker.Batch batch, long startNanos) {
		HandlerTimeoutException failure = timeoutFailure(batch);
		boolean ended = false;
		long duration = System.nanoTime() - startNanos;
		for (int i = 0; i < batch.readable().size(); i++) {
			Delivery delivery = batch.readable().get(i);
			Partition partition = partition(delivery);
			Lease lease = delivery.message().lease();
			if (!partition.leases().take(lease)) {
				continue;
			}
			ended = true;
			DeliveredMessage message = batch.messages().get(i);
			report(delivery, this.failures.apply(partition, message, lease, failure,
					this.failures.decide(message, failure)), duration, failure);
			// its outcome is recorded: a handler that never returns holds nothing back
			if (delivery.suspect()) {
				partition.leases().ended(lease);
				partition.requestClaim();
			}
			else {
				this.isolation.batchedEnded(lease);
			}
		}
		if (ended) {
			logger.warn("{} (in a batch of {}); its messages are attempted again (or dead-lettered) and its thread "
					+ "interrupted", failure.getMessage(), batch.readable().size());
			this.runner.monitorTimedOut();
		}
		return ended;
	}

	/**
	 * A batched delivery whose outcome is decided before the call (it did not start, or could not be read) no longer
	 * counts as running: a handler that never returns must not hold the next suspect back for it. A suspect's end is
	 * its own (the handler loop's).
	 */
	private void ended(Delivery delivery) {
		if (!delivery.suspect()) {
			this.isolation.batchedEnded(delivery.message().lease());
		}
	}

	private Partition partition(Delivery delivery) {
		return this.partitions.get(delivery.partition());
	}

	private void report(Delivery delivery, DelayQueueMonitor.Outcome outcome, long durationNanos,
			@Nullable Throwable failure) {
		try {
			this.monitor.handled(this.topic, delivery.message().message().group(), outcome, durationNanos, failure,
					false);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
	}

}
