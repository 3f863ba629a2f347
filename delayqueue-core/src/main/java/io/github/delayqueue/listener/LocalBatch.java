package io.github.delayqueue.listener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Lease;
import org.jspecify.annotations.Nullable;

/**
 * The messages one partition's consumer holds in memory, leased and not started yet: what claims bring in
 * ({@link #accept}) and handler threads take out ({@link #poll}). Every lease taken in is held by the partition's
 * {@link LeaseKeeper} (extended until it ends); a suspect goes first in line. How many leases the partition holds,
 * started or not, is bounded by its share of the listener's batch size; the claim loop asks for no more than that.
 */
final class LocalBatch {

	/** Batched messages waiting, in claim order (one put back goes first again). */
	private final Deque<Delivery> waiting = new ArrayDeque<>();

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
	 * Takes in what a claim leased: holds the leases and queues the messages (a suspect first).
	 * @param claim the claim's result
	 * @param sentNanos {@link System#nanoTime()} just before the claim was sent
	 */
	void accept(Claim claim, long sentNanos) {
		if (claim.messages().isEmpty()) {
			return;
		}
		long claimedNanos = System.nanoTime();
		synchronized (this.waiting) {
			for (ClaimedMessage message : claim.messages()) {
				this.leases.hold(message.lease(), sentNanos, message.suspect());
				Delivery delivery = new Delivery(message, claim.serverTime(), claimedNanos);
				if (message.suspect()) {
					this.suspect = delivery;
					this.suspectWaiting = true;
				}
				else {
					this.waiting.addLast(delivery);
				}
			}
			this.listenerWaiting.addAndGet(claim.messages().size());
		}
		this.onArrival.run();
	}

	/**
	 * Takes the next message to start: the suspect if one waits, else the next batched message if
	 * {@code batchedAllowed}.
	 * @return the message, or {@code null} if none may start
	 */
	@Nullable Delivery poll(boolean batchedAllowed) {
		synchronized (this.waiting) {
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

	/** Messages waiting to start. */
	int waiting() {
		synchronized (this.waiting) {
			return this.waiting.size() + ((this.suspect != null) ? 1 : 0);
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
			this.waiting.clear();
			this.suspect = null;
			this.suspectWaiting = false;
			return leases;
		}
	}

}
