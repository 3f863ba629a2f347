package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.scheduling.TopicTrigger;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.task.TaskDecorator;

/**
 * Consumes one topic: claims due messages only for handler threads free to run them (a lease counts the attempt, so
 * no message waits here charged) and runs them. A handler that finishes acknowledges its message and leases its next
 * one in the same call ({@link Acknowledger}); the leases held are extended by a {@link LeaseKeeper}; a handler's
 * call is made by a {@link ListenerInvoker}; failures go to the listener's {@link DeliveryErrorHandler}
 * ({@link FailedDeliveries}).
 */
final class TopicConsumer {

	private static final Logger logger = LoggerFactory.getLogger(TopicConsumer.class);

	private final ListenerRegistration<Object> registration;

	private final String topic;

	private final ListenerOptions options;

	private final RedisMessageStore store;

	private final DelayedMessageScheduler scheduler;

	private final DelayQueueMonitor monitor;

	private final ListenerInvoker invoker;

	private final LeaseKeeper leases;

	private final Acknowledger acknowledger;

	private final FailedDeliveries failures;

	private final HandlerThreads handlers;

	private final ClaimLoop claims;

	private volatile boolean active;

	private volatile @Nullable TopicTrigger trigger;

	@SuppressWarnings("unchecked")
	TopicConsumer(ListenerRegistration<?> registration, RedisMessageStore store, PayloadConverter converter,
			DelayedMessageScheduler scheduler, DelayQueueMonitor monitor, ObservationRegistry observationRegistry,
			@Nullable DelayQueueListenerObservationConvention observationConvention, @Nullable Executor taskExecutor,
			@Nullable TaskDecorator taskDecorator) {
		this.registration = (ListenerRegistration<Object>) registration;
		this.topic = registration.topic();
		this.options = registration.options();
		this.store = store;
		this.scheduler = scheduler;
		this.monitor = monitor;
		this.invoker = new ListenerInvoker(this.registration, converter, monitor, observationRegistry,
				observationConvention);
		this.leases = new LeaseKeeper(this.topic, store, this.options.visibilityTimeout());
		this.handlers = new HandlerThreads(this.topic, this.options.concurrency(), taskExecutor, taskDecorator,
				this::onSlotFreed);
		this.claims = new ClaimLoop(this.topic, store, this.options, this.handlers, () -> this.active, this::accept,
				this::dispatch);
		// a handover that failed leaves its handlers without a next message: a claim takes over once they are free
		this.acknowledger = new Acknowledger(this.topic, store, this.options, this::accept, this.claims::want);
		this.failures = new FailedDeliveries(this.topic, store, this.options, this.acknowledger);
	}

	String topic() {
		return this.topic;
	}

	ListenerRegistration<?> registration() {
		return this.registration;
	}

	boolean isActive() {
		return this.active;
	}

	int inFlight() {
		return this.handlers.busy();
	}

	boolean isClaimFailing() {
		return this.claims.isFailing();
	}

	/**
	 * Starts consuming; if a step fails, what was started is undone and the exception thrown.
	 * @param io runs claims, acknowledgement flushes and lease extensions (short Redis calls)
	 * @param maintenance times lease extensions and acknowledgement retries
	 */
	synchronized void start(Executor io, ScheduledExecutorService maintenance) {
		if (this.active) {
			return;
		}
		this.claims.start(io);
		this.acknowledger.start(io, maintenance);
		this.handlers.open();
		TopicTrigger registered = null;
		try {
			registered = this.scheduler.register(this.store.wakeChannel(this.topic), this::requestClaim);
			this.leases.startExtending(maintenance, io);
		}
		catch (RuntimeException ex) {
			if (registered != null) {
				registered.close();
			}
			this.leases.stopExtending();
			this.handlers.close();
			this.handlers.interruptAndRelease();
			throw ex;
		}
		this.trigger = registered;
		this.active = true;
		try {
			this.store.registerTopics(List.of(this.topic));
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': could not add it to the known topics", this.topic, ex);
		}
		requestClaim();
	}

	/**
	 * Stops claiming and starting handlers at once; {@link #drain(Duration)} then ends the running ones. Quick: a
	 * new consumer of the same topic may start as soon as this returns.
	 * @return whether it was active
	 */
	synchronized boolean beginStop() {
		if (!this.active) {
			return false;
		}
		this.active = false;
		TopicTrigger current = this.trigger;
		if (current != null) {
			current.close();
			this.trigger = null;
		}
		this.handlers.close();
		return true;
	}

	/** Whether the calling thread is running one of this consumer's handlers. */
	boolean isHandlerThread() {
		return this.handlers.isHandlerThread();
	}

	/**
	 * After {@link #beginStop()}: gives running handlers until the deadline, then hands what is unfinished back to
	 * the queue and interrupts those handlers.
	 */
	synchronized void drain(Duration timeout) {
		try {
			if (!this.handlers.awaitIdle(timeout)) {
				logger.warn("Topic '{}': {} handler(s) still running after the shutdown timeout of {}; "
						+ "handing their messages back", this.topic, this.handlers.busy(), timeout);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.leases.stopExtending();
		this.leases.handBackAll();
		this.handlers.interruptAndRelease();
		this.acknowledger.flush();
	}

	/** Asks for a claim: messages may be due in Redis, or leases may have ended. */
	void requestClaim() {
		this.claims.request();
	}

	/** A handler slot is free: a claim that was wanted can lease a message for it now. */
	private void onSlotFreed() {
		if (this.claims.isWanted()) {
			this.claims.request();
		}
	}

	/**
	 * Takes what a claim or a handover leased: holds the leases (hands them back at once, unstarted, if stopped
	 * meanwhile), reports burials, and arms the trigger for the next due time.
	 * @return the deliveries to run
	 */
	private List<Delivery> accept(Claim claim) {
		long claimedNanos = System.nanoTime();
		List<Delivery> deliveries = new ArrayList<>(claim.messages().size());
		for (ClaimedMessage message : claim.messages()) {
			this.leases.hold(message.lease());
			deliveries.add(new Delivery(message, claim.serverTime(), claimedNanos));
		}
		if (claim.buried() > 0) {
			try {
				this.monitor.expired(this.topic, claim.buried());
			}
			catch (RuntimeException ex) {
				logger.warn("Topic '{}': the monitor failed", this.topic, ex);
			}
		}
		if (!this.active) {
			// stopped meanwhile: handed back unstarted (their attempt is not counted)
			this.leases.handBack(deliveries.stream().map((delivery) -> delivery.message().lease()).toList());
			return List.of();
		}
		long next = claim.nextWakeDelayMicros();
		TopicTrigger current = this.trigger;
		if (next == 0) {
			// more are due than this call leased (or some were buried): claimed once a handler is free
			this.claims.want();
		}
		else if (next > 0 && current != null) {
			current.armIn(next, TimeUnit.MICROSECONDS);
		}
		return deliveries;
	}

	/** Runs a delivery on a handler thread; its handler slot is taken already. */
	private void dispatch(Delivery delivery) {
		if (!this.handlers.execute(() -> runHandler(delivery))) {
			// stopping: handed back unstarted (the slot is freed)
			this.leases.handBack(List.of(delivery.message().lease()));
		}
	}

	/**
	 * Runs on a handler thread: handles a delivery, then, while messages are due, the next one leased in the call
	 * that acknowledges the previous. Its slot is freed when it returns (and a wanted claim then asked for).
	 */
	private void runHandler(Delivery first) {
		Delivery current = first;
		while (current != null) {
			Delivery delivery = current;
			Lease[] delivered = new Lease[1];
			// the task decorator wraps each message's handling, not the run of a handler thread
			this.handlers.decorate(() -> delivered[0] = handle(delivery)).run();
			current = this.acknowledger.handOver(delivered[0], this.active);
		}
	}

	/**
	 * Handles one delivery; returns its lease to acknowledge if the handler returned (and the lease is still this
	 * consumer's to end), else {@code null}.
	 */
	private @Nullable Lease handle(Delivery delivery) {
		Lease lease = delivery.message().lease();
		long start = System.nanoTime();
		ListenerInvoker.Result result = this.invoker.invoke(delivery);
		long duration = System.nanoTime() - start;
		Throwable failure = result.failure();
		if (failure == null) {
			boolean mine = this.leases.take(lease);
			report(DelayQueueMonitor.Outcome.SUCCESS, duration, null, result.observed());
			return mine ? lease : null;
		}
		DeliveredMessage message = this.invoker.deliveredMessage(delivery);
		FailureAction action = this.failures.decide(message, failure);
		if (this.leases.take(lease)) {
			report(this.failures.apply(message, lease, failure, action), duration, failure, result.observed());
		}
		if (failure instanceof Error error && !(failure instanceof AssertionError)) {
			throw error;
		}
		return null;
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
