package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.Lease;
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
	}

	/**
	 * Starts running messages.
	 * @param io runs a timed-out handler's outcome
	 * @param maintenance times the handler timeout
	 */
	void start(Executor io, ScheduledExecutorService maintenance) {
		this.io = io;
		this.maintenance = maintenance;
		this.active = true;
	}

	/** The listener stops (a message that may no longer start is not worth a warning then). */
	void stop() {
		this.active = false;
	}

	/**
	 * Handles one message and settles its outcome; on the handler thread, inside the task decorator.
	 * @param delivery the message
	 * @param partition the partition that leased it
	 */
	void run(Delivery delivery, Partition partition) {
		LeaseKeeper leases = partition.leases();
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
			return;
		}
		Expiry expiry = delivery.message().expiry();
		if (expiry != null && expiry.isPassed(redisNow(delivery))) {
			// its deadline passed while it waited here: never delivered after it; handed back, the next claim
			// dead-letters or drops it as it says, and counts it
			leases.handBack(lease);
			return;
		}
		if (!leases.started(lease)) {
			// handed back meanwhile (the consumer stops): another consumer may have the message already
			return;
		}
		long start = System.nanoTime();
		RunningHandler watch = RunningHandler.watch(this.options.handlerTimeout(), this.maintenance, this.io,
				() -> timedOut(delivery, partition, start));
		ListenerInvoker.Result result = this.invoker.invoke(delivery);
		long duration = System.nanoTime() - start;
		this.prefetch.completed();
		Throwable failure = result.failure();
		if (watch != null && watch.finish()) {
			// ended as failed by the timeout already; an Error the handler died of after it still goes up
			rethrowIfFatal(failure);
			return;
		}
		if (failure == null) {
			if (leases.take(lease)) {
				partition.acknowledger().acknowledge(lease, delivery.suspect());
				report(DelayQueueMonitor.Outcome.SUCCESS, duration, null, result.observed());
			}
			return;
		}
		DeliveredMessage message = result.delivered();
		FailureAction action = this.failures.decide(message, failure);
		if (leases.take(lease)) {
			report(this.failures.apply(partition, message, lease, failure, action), duration, failure,
					result.observed());
		}
		rethrowIfFatal(failure);
	}

	/** An Error (other than a failed assertion) goes up to the thread, once the outcome is recorded. */
	private static void rethrowIfFatal(@Nullable Throwable failure) {
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
		report(this.failures.apply(partition, message, lease, failure, this.failures.decide(message, failure)),
				System.nanoTime() - startNanos, failure, false);
		// its outcome is recorded: a handler that ignores the interrupt and never returns holds nothing back (a
		// suspect's isolation opens, a batched one no longer keeps the next suspect waiting)
		if (delivery.suspect()) {
			partition.leases().ended(lease);
			partition.requestClaim();
		}
		else {
			this.isolation.batchedEnded(lease);
		}
		try {
			this.monitor.handlerTimedOut(this.topic);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
		return true;
	}

	private void report(DelayQueueMonitor.Outcome outcome, long durationNanos, @Nullable Throwable failure,
			boolean observed) {
		try {
			this.monitor.handled(this.topic, outcome, durationNanos, failure, observed);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
	}

}
