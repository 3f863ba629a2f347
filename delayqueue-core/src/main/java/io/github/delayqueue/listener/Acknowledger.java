package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Lease;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Acknowledges one partition's delivered messages, group-committed, and is the one place that decides how an
 * acknowledgement travels ({@link #acknowledge}): a suspect's at once, on the calling thread, so that its outcome is
 * in Redis before the next suspect may run; a batched message's rides on the partition's next claim
 * ({@link #takeForClaim()}) when one is coming, and goes on its own when none is, at once if the partition holds
 * nothing else or after a short linger if handlers are still busy with its messages (their acknowledgements then go
 * together). The claim loop says whether a claim is coming ({@link #claimExpected}); it decides nothing here. An
 * acknowledgement that fails is kept and tried again with a growing delay until the lease it presents has surely
 * ended (acknowledging is conditional on the lease, so repeating it is safe); only then is the message left to be
 * redelivered.
 */
final class Acknowledger {

	private static final Logger logger = LoggerFactory.getLogger(Acknowledger.class);

	private static final long FIRST_RETRY_MILLIS = 100;

	private static final long MAX_RETRY_MILLIS = 2_000;

	/** How long acknowledgements wait for a claim to ride on while handlers are still busy with the batch. */
	private static final long LINGER_MILLIS = 10;

	private final String partition;

	private final RedisMessageStore store;

	private final Duration visibilityTimeout;

	private final LeaseKeeper leases;

	/** Whether a claim of the partition is coming that acknowledgements waiting now will ride on. */
	private volatile boolean claimExpected;

	private final Queue<PendingAck> pending = new ConcurrentLinkedQueue<>();

	private final AtomicBoolean flushing = new AtomicBoolean();

	/** Calls carrying acknowledgements of this partition on their way (claims and flushes). */
	private final AtomicInteger sending = new AtomicInteger();

	private final Object settled = new Object();

	private final AtomicBoolean lingering = new AtomicBoolean();

	private volatile Executor io = Runnable::run;

	private volatile @Nullable ScheduledExecutorService maintenance;

	private volatile int failedFlushes;

	/**
	 * Creates the acknowledger of one partition.
	 * @param partition the store's name of the partition
	 * @param store the Redis store
	 * @param visibilityTimeout how long a lease lasts: an acknowledgement that failed is tried again until then
	 * @param leases the partition's leases (what it holds decides whether an acknowledgement lingers)
	 */
	Acknowledger(String partition, RedisMessageStore store, Duration visibilityTimeout, LeaseKeeper leases) {
		this.partition = partition;
		this.store = store;
		this.visibilityTimeout = visibilityTimeout;
		this.leases = leases;
	}

	/**
	 * Sets where background flushes run and how retries are timed.
	 * @param io runs flushes (short Redis calls)
	 * @param maintenance times lingers and retries of failed flushes
	 */
	void start(Executor io, ScheduledExecutorService maintenance) {
		this.io = io;
		this.maintenance = maintenance;
	}

	/**
	 * Acknowledges a delivered message whose lease the caller took out of the partition's leases.
	 * @param lease its lease
	 * @param suspect whether it ran as a suspect: then it is sent at once, on this thread, with what else waits (if
	 * that fails, it is kept and tried again in the background)
	 */
	void acknowledge(Lease lease, boolean suspect) {
		this.pending.add(new PendingAck(lease, System.nanoTime()));
		if (suspect) {
			flush();
		}
		else if (!this.claimExpected) {
			flushSoon();
		}
	}

	/**
	 * Says whether a claim of the partition is coming (asked for, or running and not waiting): while one is,
	 * acknowledgements wait for it; when none is any more, those waiting go on their own.
	 * @param expected whether a claim is coming
	 */
	void claimExpected(boolean expected) {
		this.claimExpected = expected;
		if (!expected) {
			flushSoon();
		}
	}

	/**
	 * Sends the waiting acknowledgements on their own, no claim being due to carry them: at once if the partition
	 * holds nothing else, else after a short linger (a claim may take them meanwhile, or handlers still running add
	 * theirs).
	 */
	private void flushSoon() {
		if (this.pending.isEmpty()) {
			return;
		}
		if (this.leases.size() == 0) {
			scheduleFlush(0);
		}
		else if (this.lingering.compareAndSet(false, true)) {
			scheduleFlush(LINGER_MILLIS);
		}
	}

	/**
	 * Takes the waiting acknowledgements for a claim to carry.
	 * @return at most {@link RedisMessageStore#CHUNK_SIZE} of them
	 */
	List<PendingAck> takeForClaim() {
		if (this.pending.isEmpty()) {
			return List.of();
		}
		List<PendingAck> batch = new ArrayList<>();
		PendingAck ack;
		while (batch.size() < RedisMessageStore.CHUNK_SIZE && (ack = this.pending.poll()) != null) {
			batch.add(ack);
		}
		if (!batch.isEmpty()) {
			this.sending.incrementAndGet();
		}
		return batch;
	}

	/**
	 * Says that the claim that carried acknowledgements has returned or failed (after {@link #claimFailed}).
	 * @param batch what it carried
	 */
	void claimDone(List<PendingAck> batch) {
		if (!batch.isEmpty()) {
			sent();
		}
	}

	private void sent() {
		if (this.sending.decrementAndGet() == 0) {
			synchronized (this.settled) {
				this.settled.notifyAll();
			}
		}
	}

	/**
	 * Sends what waits, then waits until no call carrying this partition's acknowledgements is on its way, at most
	 * for a while: before a suspect starts, so that a suspect that kills the JVM cannot take down the outcome of a
	 * message that finished before it.
	 * @param timeout how long to wait at most
	 */
	void settle(Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!this.pending.isEmpty() || this.sending.get() > 0) {
			if (!this.pending.isEmpty() && !flush()) {
				return;
			}
			synchronized (this.settled) {
				long left = deadline - System.nanoTime();
				if (left <= 0) {
					return;
				}
				if (this.sending.get() > 0) {
					try {
						TimeUnit.NANOSECONDS.timedWait(this.settled, Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
				}
			}
		}
	}

	/**
	 * Takes back acknowledgements whose claim failed: tried again later.
	 * @param batch what the claim carried
	 * @param ex why it failed
	 */
	void claimFailed(List<PendingAck> batch, RuntimeException ex) {
		if (!batch.isEmpty()) {
			keepForRetry(batch, ex);
		}
	}

	/**
	 * The leases of acknowledgements.
	 * @param batch the acknowledgements
	 * @return their leases, in order
	 */
	static List<Lease> leases(List<PendingAck> batch) {
		List<Lease> leases = new ArrayList<>(batch.size());
		for (PendingAck ack : batch) {
			leases.add(ack.lease());
		}
		return leases;
	}

	/**
	 * Acknowledges what is pending now, on the calling thread (on stop); what fails is kept for a retry.
	 * @return {@code false} if acknowledging failed
	 */
	boolean flush() {
		if (this.pending.isEmpty()) {
			return true;
		}
		List<PendingAck> batch = new ArrayList<>();
		PendingAck ack;
		while ((ack = this.pending.poll()) != null) {
			batch.add(ack);
		}
		if (batch.isEmpty()) {
			return true;
		}
		this.sending.incrementAndGet();
		try {
			this.store.leases().ack(this.partition, leases(batch));
		}
		catch (RuntimeException ex) {
			keepForRetry(batch, ex);
			return false;
		}
		finally {
			sent();
		}
		if (this.failedFlushes > 0) {
			logger.info("Partition '{}': acknowledging works again", this.partition);
			this.failedFlushes = 0;
		}
		return true;
	}

	/** Puts back what may still be acknowledged (its lease cannot have ended yet), and schedules a retry. */
	private void keepForRetry(List<PendingAck> batch, RuntimeException ex) {
		long leaseNanos = this.visibilityTimeout.toNanos();
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
			logger.warn("Partition '{}': could not acknowledge {} message(s); trying again", this.partition, batch.size(), ex);
		}
		else {
			logger.debug("Partition '{}': acknowledging failed again", this.partition, ex);
		}
		if (dropped > 0) {
			logger.warn("Partition '{}': gave up acknowledging {} message(s) whose lease has ended: they are redelivered",
					this.partition, dropped);
		}
		scheduleFlush(Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(failures - 1, 10)));
	}

	private void scheduleFlush(long delayMillis) {
		if (delayMillis > 0) {
			ScheduledExecutorService timer = this.maintenance;
			if (timer != null) {
				try {
					timer.schedule(() -> {
						this.lingering.set(false);
						scheduleFlush(0);
					}, delayMillis, TimeUnit.MILLISECONDS);
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

	/** An acknowledgement waiting to be sent, since when ({@link System#nanoTime()}). */
	record PendingAck(Lease lease, long sinceNanos) {
	}

}
