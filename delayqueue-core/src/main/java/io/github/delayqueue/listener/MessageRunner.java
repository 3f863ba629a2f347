package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.internal.Lease;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one message on a handler thread and settles its outcome: it starts only if its lease cannot have run out and
 * its deadline has not passed; the listener's {@link ListenerInvoker} calls the handler, watched by the handler
 * timeout; a success goes to its partition's {@link Acknowledger} (which decides how it travels), a failure to the
 * listener's {@link DeliveryErrorHandler} through {@link FailedDeliveries}; the monitor hears of each. Whoever takes
 * the lease out of the partition's {@link LeaseKeeper} first (the handler's end, the timeout, a hand-back) decides
 * the outcome, once.
 */
final class MessageRunner {

	private static final Logger logger = LoggerFactory.getLogger(MessageRunner.class);

	private final String topic;

	private final ListenerOptions options;

	private final DelayQueueMonitor monitor;

	private final ListenerInvoker invoker;

	private final Prefetch prefetch;

	private final FailedDeliveries failures;

	private final CrashIsolation isolation;

	private final PendingWork pending;

	private volatile boolean active;

	private volatile @Nullable Executor io;

	private volatile @Nullable ScheduledExecutorService maintenance;

	/**
	 * Creates the runner of a listener's messages.
	 * @param context what the listener's parts share
	 * @param invoker calls the listener's handler
	 */
	MessageRunner(ListenerContext context, ListenerInvoker invoker) {
		this.topic = context.topic();
		this.options = context.options();
		this.monitor = context.monitor();
		this.invoker = invoker;
		this.prefetch = context.prefetch();
		this.failures = new FailedDeliveries(context);
		this.isolation = context.isolation();
		this.pending = new PendingWork(context);
	}

	/**
	 * Starts running messages.
	 * @param io runs a timed-out handler's outcome
	 * @param maintenance times the handler timeout
	 */
	void start(Executor io, ScheduledExecutorService maintenance) {
		this.io = io;
		this.maintenance = maintenance;
		this.pending.start(io);
		this.active = true;
	}

	/**
	 * The listener stops (a message that may no longer start is not worth a warning then); work that completes from
	 * now on is settled on the container's I/O threads, since no handler thread may start.
	 */
	void stop() {
		this.active = false;
		this.pending.stop();
	}

	/**
	 * The listener's handler work that completes later.
	 * @return its pending work
	 */
	PendingWork pending() {
		return this.pending;
	}

	/**
	 * Handles one message and settles its outcome; on the handler thread, inside the task decorator. A handler whose
	 * work completes later is only started: its outcome is settled when the work completes (on a handler thread, by
	 * {@link #settleCompleted()}), and the call returns a future that completes then.
	 * @param delivery the message
	 * @param partition the partition that leased it
	 * @return {@code null} if the outcome is settled; else a future completing once it is
	 */
	@Nullable CompletableFuture<Void> run(Delivery delivery, Partition partition) {
		if (!mayStart(delivery, partition.leases())) {
			return null;
		}
		long start = System.nanoTime();
		RunningHandler watch = watch(() -> timedOut(delivery, partition, start));
		ListenerInvoker.Result result = this.invoker.invoke(delivery);
		Throwable failure = result.failure();
		CompletableFuture<?> pending = result.pending();
		if (watch != null && watch.finish()) {
			// ended as failed by the timeout already; an Error the handler died of after it still goes up
			this.prefetch.completed();
			if (pending != null) {
				pending.cancel(true);
			}
			rethrowIfFatal(failure);
			return null;
		}
		if (pending != null) {
			return awaitCompletion(delivery, partition, result, pending, start);
		}
		settle(delivery, partition, result, failure, start);
		return null;
	}

	/**
	 * Whether a delivery's handler may start now, which is then recorded; if not, it goes back (unless it was handed
	 * back already): its lease may have run out, or its deadline passed while it waited.
	 * @param delivery the delivery
	 * @param leases the leases of its partition
	 * @return whether it starts
	 */
	boolean mayStart(Delivery delivery, LeaseKeeper leases) {
		Lease lease = delivery.message().lease();
		if (leases.mayHaveRunOut(lease)) {
			// this consumer stood still (a long pause) since the claim: another consumer may have the message
			// already, so its handler does not start here (handed back if the lease is still ours after all)
			if (this.active) {
				logger.warn("Topic '{}': the lease of message '{}' may have run out before its handler started (this "
						+ "consumer stood still longer than the visibility timeout); it is redelivered, not handled here",
						this.topic, lease.id());
			}
			leases.handBack(lease);
			return false;
		}
		Expiry expiry = delivery.message().expiry();
		if (expiry != null && expiry.isPassed(redisNow(delivery))) {
			// its deadline passed while it waited here: never delivered after it; handed back, the next claim
			// dead-letters or drops it as it says, and counts it
			leases.handBack(lease);
			return false;
		}
		// false if handed back meanwhile (the consumer stops): another consumer may have the message already
		return leases.started(lease);
	}

	/**
	 * Settles the outcome of a handler call: a success goes to the partition's acknowledger, a failure to the error
	 * handler; unless someone else (the timeout, a hand-back) took the lease first.
	 */
	private void settle(Delivery delivery, Partition partition, ListenerInvoker.Result result,
			@Nullable Throwable failure, long start) {
		long duration = System.nanoTime() - start;
		this.prefetch.completed();
		LeaseKeeper leases = partition.leases();
		Lease lease = delivery.message().lease();
		if (failure == null) {
			if (leases.take(lease)) {
				partition.acknowledger().acknowledge(lease, delivery.suspect());
				report(delivery, DelayQueueMonitor.Outcome.SUCCESS, duration, null, result.observed());
			}
			return;
		}
		DeliveredMessage message = result.delivered();
		FailureAction action = this.failures.decide(message, failure);
		if (leases.take(lease)) {
			report(delivery, this.failures.apply(partition, message, lease, failure, action), duration, failure,
					result.observed());
		}
		rethrowIfFatal(failure);
	}

	/**
	 * Holds the lease of a handler's work until it completes (the lease keeper extends it meanwhile), bounded by what
	 * is left of the handler timeout, which cancels the work. The outcome is settled on a handler thread.
	 */
	private CompletableFuture<Void> awaitCompletion(Delivery delivery, Partition partition,
			ListenerInvoker.Result result, CompletableFuture<?> pending, long start) {
		return this.pending.await(pending, start,
				(completion) -> settleAsync(delivery, partition, result, pending, completion, start), partition::refill);
	}

	/**
	 * Starts watching the calling thread's handler call against the handler timeout.
	 * @param onTimeout ends the call's deliveries as failed; returns whether it did
	 * @return the watch, or {@code null} without a timeout
	 */
	@Nullable RunningHandler watch(BooleanSupplier onTimeout) {
		return RunningHandler.watch(this.options.handlerTimeout(), this.maintenance, this.io, onTimeout);
	}

	/** Whether the listener runs (a message that may no longer start is not worth a warning once it stops). */
	boolean isActive() {
		return this.active;
	}

	private void settleAsync(Delivery delivery, Partition partition, ListenerInvoker.Result result,
			CompletableFuture<?> pending, @Nullable Throwable completion, long start) {
		Throwable failure = (completion != null) ? ListenerInvoker.completionCause(completion) : null;
		if (failure instanceof TimeoutException && pending.isDone()) {
			// the work completed as the timeout came: its own outcome counts
			failure = PendingWork.outcomeOf(pending);
		}
		if (failure instanceof TimeoutException && !pending.isDone()) {
			// the handler timeout: the work is cancelled, and fails as a timed-out blocking handler does (its
			// observation ends with the timeout, not with the cancellation it causes)
			Duration timeout = this.options.handlerTimeout();
			failure = new HandlerTimeoutException(this.topic, delivery.message().id(),
					(timeout != null) ? timeout : Duration.ZERO);
			result.observation().error(failure);
			pending.cancel(true);
			logger.warn("{}; its work is cancelled and it is attempted again (or dead-lettered)", failure.getMessage());
			monitorTimedOut();
		}
		else if (failure instanceof CancellationException) {
			CancellationException cancelled = new CancellationException("Topic '" + this.topic + "': the work for "
					+ "message '" + delivery.message().id() + "' was cancelled");
			cancelled.initCause(failure);
			failure = cancelled;
		}
		try {
			settle(delivery, partition, result, failure, start);
		}
		catch (Error ex) {
			// a handler's work failed with an Error: settled as a failure; the settling thread goes on
			logger.error("Topic '{}': the work of message '{}' failed with an Error", this.topic,
					delivery.message().id(), ex);
		}
	}

	void monitorTimedOut() {
		try {
			this.monitor.handlerTimedOut(this.topic);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
	}

	/** An Error (other than a failed assertion) goes up to the thread, once the outcome is recorded. */
	static void rethrowIfFatal(@Nullable Throwable failure) {
		if (failure instanceof Error error && !(failure instanceof AssertionError)) {
			throw error;
		}
	}

	/** The Redis clock now, as the consumer reckons it from the claim that leased the message. */
	private static Instant redisNow(Delivery delivery) {
		return delivery.claimServerTime().plusNanos(System.nanoTime() - delivery.claimedNanos());
	}

	/**
	 * The handler of a delivery ran beyond the handler timeout: ends the delivery as failed (retry or dead letter,
	 * the attempt counted) if its outcome is still open. A timeout is a failure, not a crash: the retry runs beside
	 * the listener's other messages.
	 * @return whether it did
	 */
	private boolean timedOut(Delivery delivery, Partition partition, long startNanos) {
		Lease lease = delivery.message().lease();
		if (!partition.leases().take(lease)) {
			return false;
		}
		Duration timeout = this.options.handlerTimeout();
		HandlerTimeoutException failure = new HandlerTimeoutException(this.topic, lease.id(),
				(timeout != null) ? timeout : Duration.ZERO);
		logger.warn("{}; it is attempted again (or dead-lettered) and its thread interrupted", failure.getMessage());
		DeliveredMessage message = this.invoker.deliveredMessage(delivery);
		report(delivery, this.failures.apply(partition, message, lease, failure,
				this.failures.decide(message, failure)), System.nanoTime() - startNanos, failure, false);
		// its outcome is recorded: a handler that ignores the interrupt and never returns holds nothing back (a
		// suspect's isolation opens, a batched one no longer keeps the next suspect waiting)
		if (delivery.suspect()) {
			partition.leases().ended(lease);
			partition.requestClaim();
		}
		else {
			this.isolation.batchedEnded(lease);
		}
		monitorTimedOut();
		return true;
	}

	private void report(Delivery delivery, DelayQueueMonitor.Outcome outcome, long durationNanos,
			@Nullable Throwable failure, boolean observed) {
		try {
			this.monitor.handled(this.topic, delivery.message().message().group(), outcome, durationNanos, failure,
					observed);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
	}

}
