package io.github.delayqueue.listener;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.TopicTrigger;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition's claims, on the I/O executor, one at a time: when asked (by the trigger, or by a handler thread that
 * found the batch half used while more messages are due), a claim carries the acknowledgements waiting in the
 * {@link Acknowledger}, leases due messages for the room left in the partition's share of the batch size, and hands
 * them to the {@link LocalBatch}; it arms the trigger for the next due time or lease deadline. While more are due it
 * claims again at once as long as at least half the batch is free; otherwise the handler threads ask again as they
 * use the batch up. A claim also does the topic's upkeep (expired leases, dead letter trimming), so it runs when asked
 * even with no room.
 */
final class ClaimLoop {

	private static final Logger logger = LoggerFactory.getLogger(ClaimLoop.class);

	/** The most a claim is sent ahead of a due time (a slow round trip, say after a pause, is no guide). */
	private static final long MAX_LEAD_MICROS = 5_000;

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

	private final AtomicBoolean running = new AtomicBoolean();

	private volatile boolean wanted;

	/** Whether the last claim left messages due now (it had no room for them). */
	private volatile boolean moreDue;

	private volatile boolean active;

	private volatile boolean failing;

	private volatile Executor io = Runnable::run;

	private volatile @Nullable TopicTrigger trigger;

	ClaimLoop(String topic, String partition, RedisMessageStore store, ListenerOptions options, Prefetch prefetch,
			int partitions,
			CrashIsolation isolation, LocalBatch batch, Acknowledger acknowledger, DelayQueueMonitor monitor) {
		this.topic = topic;
		this.partition = partition;
		this.store = store;
		this.options = options;
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
		this.active = true;
	}

	/** Stops claiming: a claim running now hands what it leased back. */
	void stop() {
		this.active = false;
		this.wanted = false;
		this.trigger = null;
	}

	boolean isFailing() {
		return this.failing;
	}

	/**
	 * Whether a claim runs or is asked for and will run: acknowledgements waiting now will ride on it. Not while the
	 * loop is stopped or failing (the next claim may be a poll away).
	 */
	boolean isBusy() {
		return this.running.get() || (this.wanted && this.active && !this.failing);
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
		this.wanted = true;
		if (!this.active) {
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
			while (this.active && this.wanted) {
				this.wanted = false;
				claim();
				if (this.moreDue && hasRoomForHalf()) {
					this.wanted = true;
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
		if (this.wanted && this.active && !this.failing) {
			// asked again as it ended (its request found it running)
			request();
		}
		else if (!isBusy()) {
			// no claim to ride on: acknowledgements that came in meanwhile go on their own
			this.acknowledger.flushSoon(this.batch.waiting() == 0);
		}
	}

	private void claim() {
		int limit = this.active ? Math.max(0, this.prefetch.share(this.partitions) - this.batch.held()) : 0;
		List<Acknowledger.PendingAck> acks = this.acknowledger.takeForClaim();
		Claim claim;
		long sent = System.nanoTime();
		try {
			claim = this.isolation.claim((mayLeaseSuspect) -> this.store.leases().claim(this.partition,
					Acknowledger.leases(acks), limit, this.options.visibilityTimeout().toMillis(),
					this.options.maxAttempts(), mayLeaseSuspect));
		}
		catch (RuntimeException ex) {
			this.wanted = true;
			this.acknowledger.claimFailed(acks, ex);
			throw ex;
		}
		finally {
			this.acknowledger.claimDone(acks);
		}
		long roundTrip = System.nanoTime() - sent;
		this.prefetch.claimed(roundTrip);
		if (this.failing) {
			this.failing = false;
			logger.info("Topic '{}': claiming works again", this.partition);
		}
		this.batch.accept(claim, sent);
		if (!this.active) {
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
		long next = claim.nextWakeDelayMicros();
		this.moreDue = (next == 0);
		TopicTrigger current = this.trigger;
		if (next > 0 && current != null) {
			current.armIn(wakeDelayMicros(next, roundTrip), TimeUnit.MICROSECONDS);
		}
	}

	/**
	 * When to claim next, for a due time or lease deadline {@code delayMicros} after Redis ran this claim: a round
	 * trip early. Redis ran the claim about half a round trip before its reply came, and the next claim will run
	 * about half a round trip after it is sent, so a claim sent then runs when the message falls due rather than a
	 * round trip after. Never earlier than half the delay, so a claim that finds nothing due yet (it leases nothing
	 * early: Redis compares with its own clock) is followed by fewer and fewer, never by a spin.
	 * @param delayMicros the delay the claim returned
	 * @param roundTripNanos the claim's round trip (a lead of at most {@value #MAX_LEAD_MICROS} µs)
	 * @return the delay to arm the trigger with, in microseconds
	 */
	static long wakeDelayMicros(long delayMicros, long roundTripNanos) {
		long roundTripMicros = Math.min(MAX_LEAD_MICROS, TimeUnit.NANOSECONDS.toMicros(Math.max(0, roundTripNanos)));
		long lead = Math.min(roundTripMicros, delayMicros / 2);
		return delayMicros - lead;
	}

}
