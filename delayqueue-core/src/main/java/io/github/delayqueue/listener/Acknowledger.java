package io.github.delayqueue.listener;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.GroupCommit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acknowledges one topic's delivered messages. A handler thread that finishes a message acknowledges it and leases
 * its next due message in one script call, shared with the handler threads that do so at the same moment
 * ({@link #handOver}); other acknowledgements are batched in the background ({@link #acknowledgeLater}). An
 * acknowledgement that fails is kept and tried again with a growing delay until the lease it presents has surely
 * ended (acknowledging is conditional on the lease, so repeating it is safe); only then is the message left to be
 * redelivered.
 */
final class Acknowledger {

	private static final Logger logger = LoggerFactory.getLogger(Acknowledger.class);

	private static final long FIRST_RETRY_MILLIS = 100;

	private static final long MAX_RETRY_MILLIS = 2_000;

	private final String topic;

	private final RedisMessageStore store;

	private final ListenerOptions options;

	private final ClaimAcceptor onClaim;

	private final SuspectGate suspects;

	private final Runnable onHandOverFailure;

	private final GroupCommit<Handover, @Nullable Delivery> handovers;

	private final Queue<PendingAck> pending = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean flushing = new AtomicBoolean();

	private volatile Executor io = Runnable::run;

	private volatile @Nullable ScheduledExecutorService maintenance;

	private volatile int failedFlushes;

	/**
	 * Creates an acknowledger.
	 * @param suspects lets one suspect at a time be leased for the whole listener
	 * @param onClaim takes what a handover call leased (holds the leases, arms the topic's trigger) and returns the
	 * deliveries to hand out, in order: one per handler that asked, as far as they go
	 * @param onHandOverFailure runs when a handover call failed (its handlers get no next message)
	 */
	Acknowledger(String topic, RedisMessageStore store, ListenerOptions options,
			SuspectGate suspects, ClaimAcceptor onClaim, Runnable onHandOverFailure) {
		this.suspects = suspects;
		this.topic = topic;
		this.store = store;
		this.options = options;
		this.onClaim = onClaim;
		this.onHandOverFailure = onHandOverFailure;
		this.handovers = new GroupCommit<>(this::send, RedisMessageStore.CHUNK_SIZE, 2);
	}

	/**
	 * Sets where background flushes run and how retries are timed.
	 * @param io runs flushes (short Redis calls)
	 * @param maintenance times retries of failed flushes
	 */
	void start(Executor io, ScheduledExecutorService maintenance) {
		this.io = io;
		this.maintenance = maintenance;
	}

	/**
	 * Acknowledges a delivered message (if any) and, if asked, leases the next due message for the calling handler,
	 * in a call shared with handlers doing the same.
	 * @param delivered the lease of the message the caller delivered, or {@code null}
	 * @param next whether the caller is free for a next message
	 * @return the caller's next message, or {@code null} if none is due (or Redis failed: the acknowledgement is
	 * then kept for the background flush)
	 */
	@Nullable Delivery handOver(@Nullable Lease delivered, boolean next) {
		if (!next) {
			if (delivered != null) {
				acknowledgeLater(delivered);
			}
			return null;
		}
		try {
			return this.handovers.submit(List.of(new Handover(delivered))).get(0);
		}
		catch (RuntimeException ex) {
			logger.debug("Topic '{}': acknowledging and leasing the next message failed", this.topic, ex);
			this.onHandOverFailure.run();
			if (delivered != null) {
				acknowledgeLater(delivered);
			}
			return null;
		}
	}

	private List<@Nullable Delivery> send(List<Handover> handovers) {
		List<Lease> acks = new ArrayList<>(handovers.size());
		for (Handover handover : handovers) {
			if (handover.ack() != null) {
				acks.add(handover.ack());
			}
		}
		long sent = System.nanoTime();
		Claim claim = this.suspects.claim((mayLeaseSuspect) -> this.store.ackAndClaim(this.topic, acks,
				handovers.size(), this.options.visibilityTimeout().toMillis(), this.options.maxAttempts(),
				mayLeaseSuspect));
		List<@Nullable Delivery> next = new ArrayList<>(this.onClaim.accept(claim, sent));
		while (next.size() < handovers.size()) {
			next.add(null);
		}
		return next;
	}

	/** Acknowledges a delivered message in the background, batched with others. */
	void acknowledgeLater(Lease lease) {
		this.pending.add(new PendingAck(lease, System.nanoTime()));
		scheduleFlush(0);
	}

	/**
	 * Acknowledges what is pending now, on the calling thread (on stop); what fails is kept for a retry.
	 * @return {@code false} if acknowledging failed
	 */
	boolean flush() {
		List<PendingAck> batch = new ArrayList<>();
		PendingAck ack;
		while ((ack = this.pending.poll()) != null) {
			batch.add(ack);
		}
		if (batch.isEmpty()) {
			return true;
		}
		try {
			this.store.ack(this.topic, batch.stream().map(PendingAck::lease).toList());
		}
		catch (RuntimeException ex) {
			keepForRetry(batch, ex);
			return false;
		}
		if (this.failedFlushes > 0) {
			logger.info("Topic '{}': acknowledging works again", this.topic);
			this.failedFlushes = 0;
		}
		return true;
	}

	/** Puts back what may still be acknowledged (its lease cannot have ended yet), and schedules a retry. */
	private void keepForRetry(List<PendingAck> batch, RuntimeException ex) {
		long leaseNanos = this.options.visibilityTimeout().toNanos();
		long now = System.nanoTime();
		int dropped = 0;
		for (PendingAck ack : batch) {
			if (now - ack.sinceNanos() < leaseNanos) {
				this.pending.add(ack);
			}
			else {
				dropped++;
			}
		}
		int failures = ++this.failedFlushes;
		if (failures == 1) {
			logger.warn("Topic '{}': could not acknowledge {} message(s); trying again", this.topic, batch.size(), ex);
		}
		else {
			logger.debug("Topic '{}': acknowledging failed again", this.topic, ex);
		}
		if (dropped > 0) {
			logger.warn("Topic '{}': gave up acknowledging {} message(s) whose lease has ended: they are redelivered",
					this.topic, dropped);
		}
		scheduleFlush(Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(failures - 1, 10)));
	}

	private void scheduleFlush(long delayMillis) {
		if (delayMillis > 0) {
			ScheduledExecutorService timer = this.maintenance;
			if (timer != null) {
				try {
					timer.schedule(() -> scheduleFlush(0), delayMillis, TimeUnit.MILLISECONDS);
					return;
				}
				catch (RejectedExecutionException ex) {
					// stopped: flushed at once below
				}
			}
		}
		if (this.flushing.compareAndSet(false, true)) {
			try {
				this.io.execute(this::flushInBackground);
			}
			catch (RejectedExecutionException ex) {
				this.flushing.set(false);
				flush();
			}
		}
	}

	private void flushInBackground() {
		boolean flushed;
		try {
			flushed = flush();
		}
		finally {
			this.flushing.set(false);
		}
		if (flushed && !this.pending.isEmpty()) {
			// more arrived meanwhile (a failed flush has scheduled its retry already)
			scheduleFlush(0);
		}
	}

	int pendingCount() {
		return this.pending.size();
	}

	/** What a handler thread sends when it is free for its next message: the lease it delivered, if any. */
	private record Handover(@Nullable Lease ack) {
	}

	private record PendingAck(Lease lease, long sinceNanos) {
	}

}
