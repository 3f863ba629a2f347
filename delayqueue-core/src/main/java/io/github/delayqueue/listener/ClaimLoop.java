package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.Claimant;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.TopicTrigger;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's claims, on the I/O executor, one at a time: when asked (by the trigger, or by a handler thread that
 * found the batch half used while more messages are due), a claim carries the acknowledgements waiting in the
 * {@link Acknowledger}, leases due messages for the room left in the partition's share of the batch size (and those
 * due within its lookahead, which the handler threads start at their due time: {@link NextClaim#lookaheadMicros}),
 * and hands them to the {@link LocalBatch}. The next due time or lease deadline it returns is waited for on the
 * claiming thread itself when it is near ({@link #MAX_OWN_WAIT}), and left to the trigger otherwise: the trigger's
 * timer thread would only hand the claim back to an I/O thread, one thread hand-off more between a due time and its
 * claim. A request while the thread waits (the wake channel, the poll, a handler thread) or a stop ends the wait at
 * once ({@link NextClaim}). While more are due it claims again at once as long as at least half the batch is free;
 * otherwise the handler threads ask again as they use the batch up. A claim also does the topic's upkeep (expired leases, dead letter trimming), so it runs
 * when asked even with no room. Its claims name it (a {@link Claimant}): a claim whose reply never arrived (a dropped
 * connection) is undone by the next, its messages back in the queue at once and uncharged.
 */
final class ClaimLoop {

	private static final Logger logger = LoggerFactory.getLogger(ClaimLoop.class);

	/**
	 * The longest wait for a next claim that the claiming thread does itself. A topic whose messages fall due this
	 * close together keeps one I/O thread waiting for the next; a quieter one keeps none (its trigger is armed).
	 */
	static final Duration MAX_OWN_WAIT = Duration.ofMillis(10);

	private final String topic;

	private final String partition;

	private final RedisMessageStore store;

	private final ListenerOptions options;

	/** The listener's prefetch: this partition holds its share of it. */
	private final Prefetch prefetch;

	private final int partitions;

	private final CrashIsolation isolation;

	private final LocalBatch batch;

	private final Acknowledger acknowledger;

	private final DelayQueueMonitor monitor;

	private final long maxOwnWaitMicros;

	private final AtomicBoolean running = new AtomicBoolean();

	private final NextClaim next = new NextClaim();

	/** This loop in its claims: a claim whose reply never arrived is undone by the next one. */
	private final Claimant claimant = Claimant.create();

	/**
	 * The lookahead of the next claim, from the last one's round trip ({@link NextClaim#lookaheadMicros}); always 0
	 * for a listener that does not lease ahead ({@link ListenerOptions#leaseAhead()}).
	 */
	private volatile long lookaheadMicros;

	/** Whether the last claim left messages due now (it had no room for them). */
	private volatile boolean moreDue;

	private volatile boolean failing;

	private volatile Executor io = Runnable::run;

	private volatile @Nullable TopicTrigger trigger;

	ClaimLoop(String topic, String partition, RedisMessageStore store, ListenerOptions options, Prefetch prefetch,
			int partitions,
			CrashIsolation isolation, LocalBatch batch, Acknowledger acknowledger, DelayQueueMonitor monitor) {
		this(topic, partition, store, options, prefetch, partitions, isolation, batch, acknowledger, monitor,
				MAX_OWN_WAIT);
	}

	/** A claim loop whose claiming thread waits itself for next claims up to {@code maxOwnWait} away (tests). */
	ClaimLoop(String topic, String partition, RedisMessageStore store, ListenerOptions options, Prefetch prefetch,
			int partitions, CrashIsolation isolation, LocalBatch batch, Acknowledger acknowledger,
			DelayQueueMonitor monitor, Duration maxOwnWait) {
		this.maxOwnWaitMicros = TimeUnit.NANOSECONDS.toMicros(maxOwnWait.toNanos());
		this.topic = topic;
		this.partition = partition;
		this.store = store;
		this.options = options;
		this.lookaheadMicros = lookahead(0);
		this.prefetch = prefetch;
		this.partitions = partitions;
		this.isolation = isolation;
		this.batch = batch;
		this.acknowledger = acknowledger;
		this.monitor = monitor;
	}

	/**
	 * Starts claiming when asked.
	 * @param io runs the claims
	 * @param trigger is armed for the next due time or lease deadline
	 */
	void start(Executor io, TopicTrigger trigger) {
		this.io = io;
		this.trigger = trigger;
		this.next.open();
	}

	/** Stops claiming: a claim running now hands what it leased back; a wait for the next due time ends. */
	void stop() {
		this.trigger = null;
		this.next.close();
	}

	boolean isFailing() {
		return this.failing;
	}

	/**
	 * After a stop: if the last claim's reply never arrived (Redis may have run it, a dropped connection lost it),
	 * one last claim that leases nothing hands its messages back, uncharged, so that they need not wait out their
	 * lease. Skipped while a claim still runs (it fails or ends by itself); a failure is logged, the messages then
	 * coming back when their lease ends.
	 */
	void undoLostClaim() {
		if (!this.claimant.isReplyMissing() || !this.running.compareAndSet(false, true)) {
			return;
		}
		try {
			this.store.leases().claim(this.partition, this.claimant, List.of(), 0,
					this.options.visibilityTimeout().toMillis(), this.options.maxAttempts(), false, 0);
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': the claim whose reply was lost could not be undone; its messages come back when "
					+ "their lease ends", this.partition, ex);
		}
		finally {
			this.running.set(false);
		}
	}

	/**
	 * Whether a claim runs or is asked for and will run: acknowledgements waiting now will ride on it. Not while the
	 * loop is stopped or failing (the next claim may be a poll away), nor while the claiming thread waits for the next
	 * claim (up to {@link #MAX_OWN_WAIT}): they go on their own then, as while the trigger is armed.
	 */
	boolean isBusy() {
		return (this.running.get() && !this.next.isWaiting()) || (this.next.isRequested() && !this.failing);
	}

	/** Whether messages are due that this partition has had no room for. */
	boolean hasMoreDue() {
		return this.moreDue;
	}

	/**
	 * After a handler thread took a message from the batch: claims more if messages are due and at least half the
	 * share is free.
	 */
	void refill() {
		if (this.moreDue && hasRoomForHalf()) {
			request();
		}
	}

	private boolean hasRoomForHalf() {
		int share = this.prefetch.share(this.partitions);
		return share - this.batch.held() >= (share + 1) / 2;
	}

	/**
	 * Asks for a claim now: messages may be due in Redis, or leases may have ended.
	 * @return whether a claim started (else one is running, which claims again as it is wanted, or the loop is
	 * inactive)
	 */
	boolean request() {
		if (!this.next.request()) {
			return false;
		}
		if (this.running.compareAndSet(false, true)) {
			try {
				this.io.execute(this::run);
				return true;
			}
			catch (RejectedExecutionException ex) {
				this.running.set(false);
				logger.debug("Topic '{}': claim not started", this.partition, ex);
			}
		}
		return false;
	}

	private void run() {
		try {
			while (this.next.take()) {
				long wait = claim();
				if (this.moreDue && hasRoomForHalf()) {
					this.next.requestAgain();
				}
				else if (wait > 0 && !awaitOrArm(wait)) {
					// interrupted (the container's threads are shut down): no claim on this thread
					break;
				}
			}
		}
		catch (RuntimeException ex) {
			if (!this.failing) {
				this.failing = true;
				logger.warn("Topic '{}': claiming failed; trying again on the next poll", this.partition, ex);
			}
			else {
				logger.debug("Topic '{}': claiming failed again", this.partition, ex);
			}
		}
		finally {
			this.running.set(false);
		}
		if (this.next.isRequested() && !this.failing) {
			// asked again as it ended (its request found it running)
			request();
		}
		else if (!isBusy()) {
			// no claim to ride on: acknowledgements that came in meanwhile go on their own
			this.acknowledger.flushSoon(this.batch.waiting() == 0);
		}
	}

	/**
	 * Waits on this thread for the next claim if it is near, and asks for it when its time comes, unless asked for one
	 * sooner or stopped; else arms the trigger for it.
	 * @param waitMicros the delay to the next claim
	 * @return {@code false} if the thread was interrupted (the trigger is armed for the rest of the wait)
	 */
	private boolean awaitOrArm(long waitMicros) {
		if (waitMicros > this.maxOwnWaitMicros) {
			arm(waitMicros);
			return true;
		}
		long deadline = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(waitMicros);
		if (this.next.awaitUntil(deadline)) {
			return true;
		}
		arm(TimeUnit.NANOSECONDS.toMicros(Math.max(0, deadline - System.nanoTime())));
		return false;
	}

	private void arm(long waitMicros) {
		TopicTrigger current = this.trigger;
		if (current != null) {
			current.armIn(waitMicros, TimeUnit.MICROSECONDS);
		}
	}

	/** Whether the claiming thread waits for the next claim now (tests). */
	boolean isWaiting() {
		return this.next.isWaiting();
	}

	private long lookahead(long roundTripNanos) {
		return this.options.leaseAhead() ? NextClaim.lookaheadMicros(roundTripNanos) : 0;
	}

	/**
	 * Claims once.
	 * @return the delay to the next claim in microseconds ({@link NextClaim#delayMicros}); 0 if messages are due now or
	 * nothing is waiting or leased, or the loop was stopped meanwhile
	 */
	private long claim() {
		int limit = this.next.isOpen() ? Math.max(0, this.prefetch.share(this.partitions) - this.batch.held()) : 0;
		List<Acknowledger.PendingAck> acks = this.acknowledger.takeForClaim();
		long lookahead = this.lookaheadMicros;
		Claim claim;
		long sent = System.nanoTime();
		try {
			claim = this.isolation.claim((mayLeaseSuspect) -> this.store.leases().claim(this.partition,
					this.claimant, Acknowledger.leases(acks), limit, this.options.visibilityTimeout().toMillis(),
					this.options.maxAttempts(), mayLeaseSuspect, lookahead));
		}
		catch (RuntimeException ex) {
			this.next.requestAgain();
			this.acknowledger.claimFailed(acks, ex);
			throw ex;
		}
		finally {
			this.acknowledger.claimDone(acks);
		}
		long roundTrip = System.nanoTime() - sent;
		this.lookaheadMicros = lookahead(roundTrip);
		this.prefetch.claimed(roundTrip);
		if (this.failing) {
			this.failing = false;
			logger.info("Topic '{}': claiming works again", this.partition);
		}
		this.batch.accept(claim, sent);
		if (!this.next.isOpen()) {
			// stopped meanwhile: handed back at once, unstarted
			this.batch.handBackWaiting();
		}
		if (claim.buried() > 0 || claim.expired() > 0) {
			try {
				if (claim.buried() > 0) {
					this.monitor.expired(this.topic, claim.buried());
				}
				if (claim.expired() > 0) {
					this.monitor.pastDeadline(this.topic, claim.expired());
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Topic '{}': the monitor failed", this.topic, ex);
			}
		}
		long delay = claim.nextWakeDelayMicros();
		this.moreDue = (delay == 0);
		return (delay > 0 && this.next.isOpen()) ? NextClaim.delayMicros(delay, this.lookaheadMicros) : 0;
	}

}
