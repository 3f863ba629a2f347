package io.github.delayqueue.listener;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.TopicTrigger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one partition of a topic (a topic of one partition has just this one) on the handler threads the topic's
 * partitions share ({@link TopicConsumer}). Its {@link ClaimLoop} leases due messages in batches into its
 * {@link LocalBatch}, carrying the acknowledgements its {@link Acknowledger} keeps; its {@link LeaseKeeper} extends
 * the leases it holds; the handler threads take messages out and {@link #run} them, the listener's
 * {@link CrashIsolation} keeping suspects apart, and its {@link MessageRunner} runs each and settles its outcome.
 */
final class PartitionConsumer {

	private static final Logger logger = LoggerFactory.getLogger(PartitionConsumer.class);

	private final String topic;

	/** The store's name of this partition (the topic itself for partition 0). */
	private final String partition;

	private final RedisMessageStore store;

	private final ConsumerContext context;

	private final ListenerOptions options;

	private final HandlerThreads handlers;

	private final CrashIsolation isolation;

	/** Its leases, the messages waiting in memory, the acknowledgements waiting for a claim, and the claim loop. */
	private final PartitionParts parts;

	private final MessageRunner runner;

	/** The handler threads' waits for the due time of messages leased ahead of it; a stop ends them. */
	private final DueTimeWait dueTime = new DueTimeWait();

	private volatile boolean active;

	private volatile @Nullable TopicTrigger trigger;

	/**
	 * Creates the consumer of one partition.
	 * @param prefetch the listener's prefetch, of which this partition holds its share
	 * @param partitions how many partitions the listener consumes
	 * @param waiting counts the messages waiting in all the listener's partitions
	 * @param onArrival runs when claimed messages arrive (the listener's handler threads start on them)
	 */
	PartitionConsumer(ListenerRegistration<?> registration, String partition, Prefetch prefetch, int partitions,
			ConsumerContext context,
			ListenerInvoker invoker, HandlerThreads handlers, CrashIsolation isolation, AtomicInteger waiting,
			Runnable onArrival) {
		ListenerOptions options = registration.options();
		this.options = options;
		this.topic = registration.topic();
		this.partition = partition;
		this.store = context.store();
		this.context = context;
		this.handlers = handlers;
		this.isolation = isolation;
		LeaseKeeper leases = new LeaseKeeper(partition, this.store, options.visibilityTimeout(), isolation);
		LocalBatch batch = new LocalBatch(leases, waiting, onArrival);
		Acknowledger acknowledger = new Acknowledger(partition, this.store, options);
		ClaimLoop claims = new ClaimLoop(partition, prefetch, partitions, batch, acknowledger, new ClaimCall(this.topic,
				partition, this.store, options, prefetch, isolation, batch, acknowledger,
				context.properties().getMonitor()));
		this.parts = new PartitionParts(leases, batch, acknowledger, claims);
		this.runner = new MessageRunner(registration, partition, context, invoker, prefetch, this.parts);
	}

	boolean isClaimFailing() {
		return this.parts.claims().isFailing();
	}

	/** Messages leased and waiting here for a handler. */
	int waiting() {
		return this.parts.batch().waiting();
	}

	/** Whether the suspect the listener holds waits here to start. */
	boolean isSuspectWaiting() {
		return this.parts.batch().isSuspectWaiting();
	}

	/**
	 * Starts consuming; if a step fails, what was started is undone and the exception thrown.
	 * @param io runs claims, acknowledgement flushes and lease extensions (short Redis calls)
	 * @param maintenance times lease extensions, acknowledgement lingers and retries
	 */
	synchronized void start(Executor io, ScheduledExecutorService maintenance) {
		if (this.active) {
			return;
		}
		this.parts.acknowledger().start(io, maintenance);
		TopicTrigger registered = null;
		try {
			registered = this.context.scheduler().register(this.store.keys().wakeChannel(this.partition), this.parts.claims()::request);
			this.parts.leases().startExtending(maintenance, io);
		}
		catch (RuntimeException ex) {
			if (registered != null) {
				registered.close();
			}
			this.parts.leases().stopExtending();
			throw ex;
		}
		this.trigger = registered;
		this.parts.claims().start(io, registered);
		this.runner.start(io, maintenance);
		this.active = true;
		this.parts.claims().request();
	}

	/**
	 * Stops claiming and hands the messages waiting here back at once (unstarted, uncharged); {@link #handBack()}
	 * and {@link #flush()} end this partition's part once running handlers had their time.
	 */
	synchronized void beginStop() {
		if (!this.active) {
			return;
		}
		// the runner first: from now on a handler that ends sends its outcome at once, as no claim may carry it
		this.runner.stop();
		this.active = false;
		this.dueTime.end();
		this.parts.claims().stop();
		TopicTrigger current = this.trigger;
		if (current != null) {
			current.close();
			this.trigger = null;
		}
		this.parts.batch().handBackWaiting();
	}

	/** Stops extending leases and hands back those still held, uncharged (a start that failed part way). */
	void handBack() {
		this.parts.leases().stopExtending();
		this.parts.leases().handBackAll();
	}

	/**
	 * Stops extending leases and hands back those still held at the end of a stop: a message whose handler is still
	 * running comes back with that attempt counted, as a suspect.
	 * @param reason the error recorded for such a message
	 */
	void handBackRunning(String reason) {
		this.parts.leases().stopExtending();
		this.parts.leases().handBackAll(reason);
	}

	/** Undoes a claim whose reply never arrived, and sends the acknowledgements still waiting. */
	void flush() {
		this.parts.claims().undoLostClaim();
		this.parts.acknowledger().flush();
	}

	/** Sends the acknowledgements still waiting and waits (a while at most) until none is on its way. */
	void settleAcknowledgements() {
		this.parts.acknowledger().settle(this.options.visibilityTimeout());
	}

	/**
	 * Asks for a claim: messages may be due in Redis, leases may have ended, or a suspect may now be leased.
	 * @return whether a claim started
	 */
	boolean requestClaim() {
		return this.parts.claims().request();
	}

	/**
	 * Takes the next message to start from this partition's batch.
	 * @param batchedAllowed whether batched messages may start (no suspect is held)
	 * @return the message, or {@code null}
	 */
	@Nullable Delivery poll(boolean batchedAllowed) {
		return this.parts.batch().poll(batchedAllowed);
	}

	/**
	 * Runs on a handler thread: handles a message taken from this partition's batch. A batched message starts only
	 * while no suspect is held (else it goes back in line); a suspect starts once no batched handler runs, and the
	 * listener goes on when the call that ends its lease has returned.
	 */
	void run(Delivery delivery) {
		try {
			start(delivery);
		}
		finally {
			// its lease has ended (or gone back): claim more if messages are due and half the share is free
			this.parts.claims().refill();
		}
	}

	private void start(Delivery delivery) {
		Lease lease = delivery.message().lease();
		if (delivery.message().suspect()) {
			try {
				if (awaitAlone()) {
					this.isolation.suspectStarting();
					decorateAndHandle(delivery);
				}
				else {
					this.parts.leases().handBack(List.of(lease));
				}
			}
			finally {
				this.parts.leases().ended(lease);
			}
			return;
		}
		// a batched message may have been leased ahead of its due time (a suspect never is): its handler thread waits
		// for it here, before it counts as started and before the task decorator runs
		if (!this.dueTime.await(delivery.dueNanos())) {
			// the partition stopped meanwhile: handed back at once, unstarted
			this.parts.leases().handBack(List.of(lease));
			return;
		}
		if (!this.isolation.tryStartBatched()) {
			this.parts.batch().putBack(delivery);
			return;
		}
		try {
			if (this.active) {
				decorateAndHandle(delivery);
			}
			else {
				this.parts.leases().handBack(List.of(lease));
			}
		}
		finally {
			this.isolation.batchedEnded();
		}
	}

	/**
	 * Runs the handling in the task decorator. If anything throws before the outcome was decided (the decorator,
	 * reading the message), the lease still held goes back at once rather than being extended for ever.
	 */
	private void decorateAndHandle(Delivery delivery) {
		try {
			this.handlers.decorate(() -> this.runner.handle(delivery)).run();
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': message '{}' could not be handled (the task decorator, or reading it, failed "
					+ "outside the handler); it goes back to the queue", this.topic, delivery.message().id(), ex);
		}
		finally {
			this.parts.leases().handBack(List.of(delivery.message().lease()));
		}
	}

	private boolean awaitAlone() {
		try {
			return this.isolation.awaitAlone(() -> this.active);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
