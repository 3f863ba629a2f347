package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a partition's messages on the handler threads, each once, and settles its outcome: a message starts only if
 * its lease cannot have run out and its deadline has not passed; the listener's {@link ListenerInvoker} calls the
 * handler, watched by the handler timeout; a success is acknowledged (with the partition's next claim, a suspect's at
 * once), a failure goes to the listener's {@link DeliveryErrorHandler} ({@link FailedDeliveries}); the monitor hears
 * of each.
 */
final class MessageRunner {

	private static final Logger logger = LoggerFactory.getLogger(MessageRunner.class);

	private final String topic;

	private final String partition;

	private final RedisMessageStore store;

	private final ContainerProperties properties;

	private final ListenerOptions options;

	private final ListenerInvoker invoker;

	private final Prefetch prefetch;

	private final LeaseKeeper leases;

	private final LocalBatch batch;

	private final Acknowledger acknowledger;

	private final ClaimLoop claims;

	private final FailedDeliveries failures;

	private volatile boolean active;

	private volatile @Nullable Executor io;

	private volatile @Nullable ScheduledExecutorService maintenance;

	/**
	 * Creates the runner of one partition's messages.
	 * @param registration the listener
	 * @param partition the store's name of the partition
	 * @param context the container's parts
	 * @param invoker calls the listener's handler
	 * @param prefetch the listener's prefetch, told when a handler completes
	 * @param parts the partition's leases, batch, acknowledger and claim loop
	 */
	MessageRunner(ListenerRegistration<?> registration, String partition, ConsumerContext context,
			ListenerInvoker invoker, Prefetch prefetch, PartitionParts parts) {
		this.topic = registration.topic();
		this.partition = partition;
		this.store = context.store();
		this.properties = context.properties();
		this.options = registration.options();
		this.invoker = invoker;
		this.prefetch = prefetch;
		this.leases = parts.leases();
		this.batch = parts.batch();
		this.acknowledger = parts.acknowledger();
		this.claims = parts.claims();
		this.failures = new FailedDeliveries(partition, this.store, this.options, this.acknowledger);
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

	/** The partition stops: a success is acknowledged at once from now on (no claim will carry it). */
	void stop() {
		this.active = false;
	}

	/**
	 * Handles one message and sends (or queues) its outcome; on the handler thread, inside the task decorator.
	 * @param delivery the message, leased to this partition
	 */
	void handle(Delivery delivery) {
		Lease lease = delivery.message().lease();
		if (this.leases.mayHaveRunOut(lease)) {
			// this consumer stood still (a long pause) since the claim: another consumer may have the message
			// already, so its handler does not start here (handed back if the lease is still ours after all)
			if (this.active) {
				logger.warn("Topic '{}': the lease of message '{}' may have run out before its handler started (this "
						+ "consumer stood still longer than the visibility timeout); it is redelivered, not handled here",
						this.topic, lease.id());
			}
			this.leases.handBack(List.of(lease));
			return;
		}
		Expiry expiry = delivery.message().expiry();
		if (expiry != null && expiry.isPassed(redisNow(delivery))) {
			// its deadline passed while it waited here: never delivered after it; handed back, the next claim
			// dead-letters or drops it as it says, and counts it
			this.leases.handBack(List.of(lease));
			return;
		}
		if (!this.leases.started(lease)) {
			// handed back meanwhile (the consumer stops): another consumer may have the message already
			return;
		}
		long start = System.nanoTime();
		RunningHandler watch = RunningHandler.watch(this.options.handlerTimeout(), this.maintenance, this.io,
				() -> timedOut(delivery, start));
		ListenerInvoker.Result result = this.invoker.invoke(delivery);
		long duration = System.nanoTime() - start;
		this.prefetch.completed();
		if (watch != null && watch.finish()) {
			// ended as failed by the timeout already
			return;
		}
		Throwable failure = result.failure();
		if (failure == null) {
			if (this.leases.take(lease)) {
				acknowledge(lease, delivery.message().suspect());
				report(DelayQueueMonitor.Outcome.SUCCESS, duration, null, result.observed());
			}
			return;
		}
		DeliveredMessage message = result.delivered();
		FailureAction action = this.failures.decide(message, failure);
		if (this.leases.take(lease)) {
			report(this.failures.apply(message, lease, failure, action), duration, failure, result.observed());
		}
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
	 * the attempt counted) if its outcome is still open.
	 * @return whether it did
	 */
	private boolean timedOut(Delivery delivery, long startNanos) {
		Lease lease = delivery.message().lease();
		if (!this.leases.take(lease)) {
			return false;
		}
		Duration timeout = this.options.handlerTimeout();
		HandlerTimeoutException failure = new HandlerTimeoutException(this.topic, lease.id(),
				(timeout != null) ? timeout : Duration.ZERO);
		logger.warn("{}; it is attempted again (or dead-lettered) and its thread interrupted", failure.getMessage());
		DeliveredMessage message = this.invoker.deliveredMessage(delivery);
		report(this.failures.apply(message, lease, failure, this.failures.decide(message, failure)),
				System.nanoTime() - startNanos, failure, false);
		try {
			this.properties.getMonitor().handlerTimedOut(this.topic);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
		return true;
	}

	/**
	 * Acknowledges a delivered message: a batched one with the next claim (or on its own if none is coming), a
	 * suspect at once, so that its outcome is in Redis before the next suspect may run.
	 */
	private void acknowledge(Lease lease, boolean suspect) {
		if (suspect) {
			try {
				this.store.leases().ack(this.partition, List.of(lease));
				return;
			}
			catch (RuntimeException ex) {
				logger.debug("Topic '{}': acknowledging suspect '{}' failed; kept for the background flush",
						this.topic, lease.id(), ex);
				this.acknowledger.acknowledgeLater(lease);
				return;
			}
		}
		this.acknowledger.add(lease);
		if (!this.active) {
			// stopping: no claim will carry it, and the timer may be gone before a linger ends
			this.acknowledger.flush();
		}
		else if (!this.claims.isBusy()) {
			this.acknowledger.flushSoon(this.batch.waiting() == 0);
		}
	}

	private void report(DelayQueueMonitor.Outcome outcome, long durationNanos, @Nullable Throwable failure,
			boolean observed) {
		try {
			this.properties.getMonitor().handled(this.topic, outcome, durationNanos, failure, observed);
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': the monitor failed", this.topic, ex);
		}
	}

}
