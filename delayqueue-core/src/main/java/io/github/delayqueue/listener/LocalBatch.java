package io.github.delayqueue.listener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Lease;
import org.jspecify.annotations.Nullable;

/**
 * The messages one partition's consumer holds in memory, leased and not started yet: what claims bring in
 * ({@link #accept}) and handler threads take out ({@link #poll}). Every lease taken in is held by the partition's
 * {@link LeaseKeeper} (extended until it ends); a suspect goes first in line. A message leased ahead of its due time
 * is held apart until then ({@link Delivery#notBeforeNanos()}) and joins the line when the timer says it is due. How
 * many leases the partition holds, started or not, is bounded by its share of the listener's batch size; the claim
 * loop asks for no more than that.
 */
final class LocalBatch {

	/** Batched messages waiting, in claim order (one put back goes first again). */
	private final Deque<Delivery> waiting = new ArrayDeque<>();

	/** Batched messages leased ahead of their due time, earliest first: not startable yet. */
	private final PriorityQueue<Delivery> early = new PriorityQueue<>(
			Comparator.comparingLong(Delivery::notBeforeNanos));

	/** When the timer runs {@link #releaseDue()} next ({@link System#nanoTime()}), if it is set to. */
	private long releaseAtNanos;

	private boolean releaseSet;

	private volatile @Nullable ScheduledExecutorService timer;

	/** The suspect waiting to start, if any: apart from the batch, so that nothing put back ever queues before it. */
	private @Nullable Delivery suspect;

	private final LeaseKeeper leases;

	/** Messages waiting in all the listener's partitions, for its handler threads. */
	private final AtomicInteger listenerWaiting;

	private final Runnable onArrival;

	private volatile boolean suspectWaiting;

	/**
	 * Creates a partition's batch.
	 * @param leases the partition's leases
	 * @param listenerWaiting counts the messages waiting in all the listener's partitions
	 * @param onArrival runs after messages were taken in (handler threads may start on them)
	 */
	LocalBatch(LeaseKeeper leases, AtomicInteger listenerWaiting, Runnable onArrival) {
		this.leases = leases;
		this.listenerWaiting = listenerWaiting;
		this.onArrival = onArrival;
	}

	/**
	 * Starts timing the messages leased ahead of their due time.
	 * @param timer runs a short task when the earliest of them falls due
	 */
	void start(ScheduledExecutorService timer) {
		this.timer = timer;
	}

	/**
	 * Takes in what a claim leased: holds the leases and queues the messages (a suspect first); one leased ahead of its
	 * due time waits apart until then.
	 * @param claim the claim's result
	 * @param sentNanos {@link System#nanoTime()} just before the claim was sent
	 */
	void accept(Claim claim, long sentNanos) {
		if (claim.messages().isEmpty()) {
			return;
		}
		long claimedNanos = System.nanoTime();
		int queued = 0;
		synchronized (this.waiting) {
			for (ClaimedMessage message : claim.messages()) {
				this.leases.hold(message.lease(), sentNanos, message.suspect());
				Delivery delivery = Delivery.of(message, claim.serverTime(), claimedNanos);
				if (message.suspect()) {
					this.suspect = delivery;
					this.suspectWaiting = true;
					queued++;
				}
				else if (delivery.isEarly(claimedNanos)) {
					this.early.add(delivery);
				}
				else {
					this.waiting.addLast(delivery);
					queued++;
				}
			}
			this.listenerWaiting.addAndGet(queued);
			scheduleRelease();
		}
		if (queued > 0) {
			this.onArrival.run();
		}
	}

	/** Sets the timer for the earliest message leased ahead, unless it is set for it already (holding the lock). */
	private void scheduleRelease() {
		Delivery first = this.early.peek();
		ScheduledExecutorService current = this.timer;
		if (first == null || current == null
				|| (this.releaseSet && this.releaseAtNanos - first.notBeforeNanos() <= 0)) {
			return;
		}
		long at = first.notBeforeNanos();
		try {
			current.schedule(this::releaseDue, at - System.nanoTime(), TimeUnit.NANOSECONDS);
			this.releaseSet = true;
			this.releaseAtNanos = at;
		}
		catch (RejectedExecutionException ex) {
			// the consumer stops: what is held goes back with the rest of the batch
		}
	}

	/** The timer's task: moves the messages leased ahead that are due now into the line. */
	private void releaseDue() {
		int released;
		synchronized (this.waiting) {
			this.releaseSet = false;
			released = moveDue(System.nanoTime());
			scheduleRelease();
		}
		if (released > 0) {
			this.onArrival.run();
		}
	}

	/** Moves the messages leased ahead whose due time has come into the line (holding the lock). */
	private int moveDue(long nowNanos) {
		int moved = 0;
		Delivery first;
		while ((first = this.early.peek()) != null && !first.isEarly(nowNanos)) {
			this.waiting.addLast(this.early.poll());
			moved++;
		}
		this.listenerWaiting.addAndGet(moved);
		return moved;
	}

	/**
	 * Takes the next message to start: the suspect if one waits, else the next batched message if
	 * {@code batchedAllowed}.
	 * @return the message, or {@code null} if none may start
	 */
	@Nullable Delivery poll(boolean batchedAllowed) {
		synchronized (this.waiting) {
			if (!this.early.isEmpty()) {
				// due ones need not wait for the timer
				moveDue(System.nanoTime());
			}
			Delivery next = this.suspect;
			if (next != null) {
				this.suspect = null;
				this.suspectWaiting = false;
			}
			else if (batchedAllowed) {
				next = this.waiting.pollFirst();
			}
			if (next != null) {
				this.listenerWaiting.decrementAndGet();
			}
			return next;
		}
	}

	/** Puts back a message taken out that may not start now; it goes first in line again (a suspect stays first). */
	void putBack(Delivery delivery) {
		synchronized (this.waiting) {
			if (delivery.message().suspect()) {
				this.suspect = delivery;
				this.suspectWaiting = true;
			}
			else {
				this.waiting.addFirst(delivery);
			}
			this.listenerWaiting.incrementAndGet();
		}
	}

	/** Whether a suspect waits to start. */
	boolean isSuspectWaiting() {
		return this.suspectWaiting;
	}

	/** Messages waiting to start, due or leased ahead. */
	int waiting() {
		synchronized (this.waiting) {
			return this.waiting.size() + this.early.size() + ((this.suspect != null) ? 1 : 0);
		}
	}

	/** Leases held: messages waiting and messages whose handler runs. */
	int held() {
		return this.leases.size();
	}

	/** Hands every message still waiting back to the queue at once, unstarted and uncharged. */
	void handBackWaiting() {
		List<Lease> unstarted = takeAll();
		if (!unstarted.isEmpty()) {
			this.leases.handBack(unstarted);
		}
	}

	private List<Lease> takeAll() {
		synchronized (this.waiting) {
			List<Lease> leases = new ArrayList<>(this.waiting.size() + 1);
			Delivery waitingSuspect = this.suspect;
			if (waitingSuspect != null) {
				leases.add(waitingSuspect.message().lease());
			}
			for (Delivery delivery : this.waiting) {
				leases.add(delivery.message().lease());
			}
			this.listenerWaiting.addAndGet(-leases.size());
			for (Delivery delivery : this.early) {
				leases.add(delivery.message().lease());
			}
			this.early.clear();
			this.waiting.clear();
			this.suspect = null;
			this.suspectWaiting = false;
			return leases;
		}
	}

}
