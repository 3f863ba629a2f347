package io.github.delayqueue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

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

/**
 * Consumes one partition of a topic (a topic of one partition has just this one), on the handler threads the
 * topic's partitions share ({@link TopicConsumer}): claims due messages only for handler threads free to run them (a lease counts the attempt, so
 * no message waits here charged) and runs them. A handler that finishes acknowledges its message and leases its next
 * one in the same call ({@link Acknowledger}); the leases held are extended by a {@link LeaseKeeper}; a handler's
 * call is made by a {@link ListenerInvoker}; failures go to the listener's {@link DeliveryErrorHandler}
 * ({@link FailedDeliveries}).
 */
final class PartitionConsumer {

	private static final Logger logger = LoggerFactory.getLogger(PartitionConsumer.class);

	/** Messages a handler runs in a row from its partition before it yields its slot to another waiting one. */
	private static final int FAIR_SHARE_RUN = 8;

	private final ListenerRegistration<Object> registration;

	private final String topic;

	/** The store's name of this partition (the topic itself for partition 0). */
	private final String partition;

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

	/** Handlers running this partition's messages (or about to). */
	private final AtomicInteger running = new AtomicInteger();

	/** Whether another partition of the topic has due messages waiting for a handler slot. */
	private final BooleanSupplier othersWaiting;

	private volatile boolean active;

	private volatile @Nullable TopicTrigger trigger;

	@SuppressWarnings("unchecked")
	PartitionConsumer(ListenerRegistration<?> registration, String partition, RedisMessageStore store,
			PayloadConverter converter, DelayedMessageScheduler scheduler, DelayQueueMonitor monitor,
			ObservationRegistry observationRegistry,
			@Nullable DelayQueueListenerObservationConvention observationConvention, HandlerThreads handlers,
			SuspectGate suspects, BooleanSupplier othersWaiting) {
		this.registration = (ListenerRegistration<Object>) registration;
		this.topic = registration.topic();
		this.partition = partition;
		this.options = registration.options();
		this.handlers = handlers;
		this.othersWaiting = othersWaiting;
		this.store = store;
		this.scheduler = scheduler;
		this.monitor = monitor;
		this.invoker = new ListenerInvoker(this.registration, converter, monitor, observationRegistry,
				observationConvention);
		this.leases = new LeaseKeeper(partition, store, this.options.visibilityTimeout(), suspects);
		this.claims = new ClaimLoop(partition, store, this.options, this.handlers, suspects, () -> this.active,
				() -> this.running.get() > 0, this::accept, this::dispatch);
		// a handover that failed leaves its handlers without a next message: a claim takes over once they are free
		this.acknowledger = new Acknowledger(partition, store, this.options, suspects, this::accept,
				this.claims::want);
		this.failures = new FailedDeliveries(partition, store, this.options, this.acknowledger);
	}

	boolean isActive() {
		return this.active;
	}

	boolean isClaimFailing() {
		return this.claims.isFailing();
	}

	/** Whether due messages of this partition wait for a free handler slot. */
	boolean isWaiting() {
		return this.active && this.claims.isWanted();
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
		TopicTrigger registered = null;
		try {
			registered = this.scheduler.register(this.store.wakeChannel(this.partition), this::requestClaim);
			this.leases.startExtending(maintenance, io);
		}
		catch (RuntimeException ex) {
			if (registered != null) {
				registered.close();
			}
			this.leases.stopExtending();
			throw ex;
		}
		this.trigger = registered;
		this.active = true;
		requestClaim();
	}

	/**
	 * Stops claiming at once; the topic's handler threads stop taking new runs, then {@link #handBack()} and
	 * {@link #flush()} end this partition's part once running handlers had their time.
	 */
	synchronized void beginStop() {
		if (!this.active) {
			return;
		}
		this.active = false;
		TopicTrigger current = this.trigger;
		if (current != null) {
			current.close();
			this.trigger = null;
		}
	}

	/** Stops extending leases and hands back those still held: their handlers did not finish in time. */
	void handBack() {
		this.leases.stopExtending();
		this.leases.handBackAll();
	}

	/** Sends the acknowledgements still waiting. */
	void flush() {
		this.acknowledger.flush();
	}

	/**
	 * Asks for a claim: messages may be due in Redis, or leases may have ended.
	 * @return whether a claim started
	 */
	boolean requestClaim() {
		return this.claims.request();
	}

	/**
	 * Takes what a claim or a handover leased: holds the leases (hands them back at once, unstarted, if stopped
	 * meanwhile), reports burials, and arms the trigger for the next due time.
	 * @return the deliveries to run
	 */
	private List<Delivery> accept(Claim claim, long sentNanos) {
		long claimedNanos = System.nanoTime();
		List<Delivery> deliveries = new ArrayList<>(claim.messages().size());
		for (ClaimedMessage message : claim.messages()) {
			this.leases.hold(message.lease(), sentNanos, message.suspect());
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
		this.running.incrementAndGet();
		if (!this.handlers.execute(() -> runHandler(delivery))) {
			// stopping: handed back unstarted (the slot is freed)
			this.running.decrementAndGet();
			this.leases.handBack(List.of(delivery.message().lease()));
		}
	}

	/**
	 * Runs on a handler thread: handles a delivery, then, while messages are due, the next one leased in the call
	 * that acknowledges the previous. Its slot is freed when it returns (and a wanted claim then asked for).
	 */
	private void runHandler(Delivery first) {
		try {
			Delivery current = first;
			int run = 0;
			while (current != null) {
				Delivery delivery = current;
				Lease[] delivered = new Lease[1];
				try {
					// the task decorator wraps each message's handling, not the run of a handler thread
					this.handlers.decorate(() -> delivered[0] = handle(delivery)).run();
					// a handler takes this partition's next message in the call that acknowledges this one; after a
					// run of them, if another partition's due messages are waiting, it gives its slot up, and this
					// partition waits its turn for one (yielding after every message would cost a round trip per
					// message)
					boolean yielding = ++run >= FAIR_SHARE_RUN && this.othersWaiting.getAsBoolean();
					if (yielding) {
						this.claims.want();
					}
					current = this.acknowledger.handOver(delivered[0], this.active && !yielding);
				}
				finally {
					// a suspect's outcome has been sent (or its handler threw an Error): the next suspect may run
					this.leases.ended(delivery.message().lease());
				}
			}
		}
		finally {
			this.running.decrementAndGet();
		}
	}

	/**
	 * Handles one delivery; returns its lease to acknowledge if the handler returned (and the lease is still this
	 * consumer's to end), else {@code null}.
	 */
	private @Nullable Lease handle(Delivery delivery) {
		Lease lease = delivery.message().lease();
		if (this.leases.mayHaveRunOut(lease)) {
			// this consumer stood still (a long pause) since the claim, or stopped: another consumer may have the
			// message already, so its handler does not start here (handed back if the lease is still ours after all)
			if (this.active) {
				logger.warn("Topic '{}': the lease of message '{}' may have run out before its handler started (this "
						+ "consumer stood still longer than the visibility timeout); it is redelivered, not handled here",
						this.topic, lease.id());
			}
			this.leases.handBack(List.of(lease));
			return null;
		}
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
