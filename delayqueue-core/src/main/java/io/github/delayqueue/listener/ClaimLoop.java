package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.wakeup.TopicTrigger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When one partition's claims run: on the I/O executor, one at a time, when asked (by the trigger, or by a handler
 * thread that found the batch half used while more messages are due), each for the room left in the partition's share
 * of the batch size; what a claim sends and where its messages go is its {@link ClaimCall}'s (the acknowledgements
 * waiting, the messages due within its lookahead, which the handler threads start at their due time, into the
 * {@link ReadyQueue}). The next due time or lease deadline it returns is waited for on the
 * claiming thread itself when it is near ({@link #MAX_OWN_WAIT}), and left to the trigger otherwise: the trigger's
 * timer thread would only hand the claim back to an I/O thread, one thread hand-off more between a due time and its
 * claim. A request while the thread waits (the wake channel, the poll, a handler thread) or a stop ends the wait at
 * once ({@link NextClaim}). While more are due it claims again at once as long as at least half the batch is free;
 * otherwise the handler threads ask again as they use the batch up. A claim also does the topic's upkeep (expired leases, dead letter trimming), so it runs
 * when asked even with no room. A claim whose reply never arrived (a dropped connection) is undone by the next, or
 * on a stop by one more ({@link #undoLostClaim()}).
 */
final class ClaimLoop {

	private static final Logger logger = LoggerFactory.getLogger(ClaimLoop.class);

	/**
	 * The longest wait for a next claim that the claiming thread does itself. A topic whose messages fall due this
	 * close together keeps one I/O thread waiting for the next; a quieter one keeps none (its trigger is armed).
	 */
	static final Duration MAX_OWN_WAIT = Duration.ofMillis(10);

	private final String partition;

	/** What the listener's parts share: this partition holds its share of the listener's prefetch. */
	private final ListenerContext context;

	private final LeaseKeeper leases;

	/** Told whether a claim is coming, so that acknowledgements ride on it or go on their own. */
	private final Acknowledger acknowledger;

	/** What each claim sends, and what its reply leaves. */
	private final ClaimCall calls;

	private final long maxOwnWaitMicros;

	private final AtomicBoolean running = new AtomicBoolean();

	private final NextClaim next = new NextClaim();

	/** Whether the last claim left messages due now (it had no room for them). */
	private volatile boolean moreDue;

	private volatile boolean failing;

	private volatile Executor io = Runnable::run;

	private volatile @Nullable TopicTrigger trigger;

	/**
	 * Creates the claim loop of one partition.
	 * @param context what the listener's parts share
	 * @param index the partition's index
	 * @param leases the partition's leases
	 * @param acknowledger the partition's acknowledgements, which ride on its claims
	 */
	ClaimLoop(ListenerContext context, int index, LeaseKeeper leases, Acknowledger acknowledger) {
		this(context, index, leases, acknowledger, MAX_OWN_WAIT);
	}

	/** A claim loop whose claiming thread waits itself for next claims up to {@code maxOwnWait} away (tests). */
	ClaimLoop(ListenerContext context, int index, LeaseKeeper leases, Acknowledger acknowledger,
			Duration maxOwnWait) {
		this.maxOwnWaitMicros = TimeUnit.NANOSECONDS.toMicros(maxOwnWait.toNanos());
		this.partition = context.partitionName(index);
		this.context = context;
		this.leases = leases;
		this.acknowledger = acknowledger;
		this.calls = new ClaimCall(context, index, leases, acknowledger);
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
		this.acknowledger.claimExpected(false);
	}

	boolean isFailing() {
		return this.failing;
	}

	/**
	 * After a stop: undoes the last claim if its reply never arrived ({@link ClaimCall#undoLost()}). Skipped while a
	 * claim still runs (it fails or ends by itself).
	 */
	void undoLostClaim() {
		if (this.running.compareAndSet(false, true)) {
			try {
				this.calls.undoLost();
			}
			finally {
				this.running.set(false);
			}
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
		int share = this.context.share();
		return share - this.leases.size() >= (share + 1) / 2;
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
		if (!this.failing) {
			this.acknowledger.claimExpected(true);
		}
		if (this.running.compareAndSet(false, true)) {
			try {
				this.io.execute(this::run);
				return true;
			}
			catch (RejectedExecutionException ex) {
				this.running.set(false);
				logger.debug("Partition '{}': claim not started", this.partition, ex);
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
				logger.warn("Partition '{}': claiming failed; trying again on the next poll", this.partition, ex);
			}
			else {
				logger.debug("Partition '{}': claiming failed again", this.partition, ex);
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
			this.acknowledger.claimExpected(false);
			if (isBusy()) {
				// asked for meanwhile, after all
				this.acknowledger.claimExpected(true);
			}
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
		// while this thread waits, acknowledgements go on their own, as while the trigger is armed
		this.acknowledger.claimExpected(false);
		boolean waited = this.next.awaitUntil(deadline);
		if (this.next.isOpen()) {
			this.acknowledger.claimExpected(true);
		}
		if (waited) {
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

	/**
	 * Claims once.
	 * @return the delay to the next claim in microseconds ({@link NextClaim#delayMicros}); 0 if messages are due now or
	 * nothing is waiting or leased, or the loop was stopped meanwhile
	 */
	private long claim() {
		// while the listener runs a suspect, it leases nothing else: if the suspect kills the JVM, no other message of
		// the listener is left leased to become a suspect in turn (the suspect's end asks every partition to claim)
		int limit = (this.next.isOpen() && !this.context.isolation().isSuspectHeld())
				? Math.max(0, this.context.share() - this.leases.size()) : 0;
		Claim claim;
		try {
			claim = this.calls.send(limit);
		}
		catch (RuntimeException ex) {
			this.next.requestAgain();
			throw ex;
		}
		if (this.failing) {
			this.failing = false;
			logger.info("Partition '{}': claiming works again", this.partition);
		}
		// stopped meanwhile: the listener's queue is closed, and the messages go back at once, unstarted
		this.calls.hand(claim);
		this.calls.report(claim);
		long delay = claim.nextWakeDelayMicros();
		// more due now, unless a suspect runs: then the claims wait for its end, which asks for the next
		this.moreDue = (delay == 0) && !this.context.isolation().isSuspectHeld();
		return (delay > 0 && this.next.isOpen()) ? NextClaim.delayMicros(delay, this.calls.lookaheadMicros()) : 0;
	}

}
