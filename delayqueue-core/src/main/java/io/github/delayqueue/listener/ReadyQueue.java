package io.github.delayqueue.listener;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The one queue of a listener's leased messages waiting for a handler thread, from all its partitions: claims
 * {@link #offer} what they leased, handler threads {@link #poll} it in claim order once it is due, and each arrival
 * wakes the listener's {@link HandlerThreads}. A message leased ahead of its due time stays here until then: one
 * handler thread at a time {@linkplain #awaitHeadDue() waits} for the first in line, the others end, and so a
 * waiting thread holds no slot a due message could use (see {@link DueTimeWait}). A suspect goes first in line,
 * apart from the batch; when it is about to run alone, the batched messages still waiting are taken out to be handed
 * back ({@link #takeBatched()}). Closed on stop: what waits is handed back by the caller, and claims that come later
 * hand back what they leased.
 */
final class ReadyQueue {

	/** Batched messages waiting, in claim order; guarded by itself. */
	private final Deque<Delivery> batched = new ArrayDeque<>();

	/** The suspect waiting to start, if any; guarded by {@link #batched}. */
	private @Nullable Delivery suspect;

	/** Guarded by {@link #batched}. */
	private boolean open = true;

	private volatile int size;

	private final HandlerThreads threads;

	private final CrashIsolation isolation;

	/** The wait for the due time of the first batched message, by one handler thread at a time. */
	private final DueTimeWait dueTime = new DueTimeWait();

	ReadyQueue(HandlerThreads threads, CrashIsolation isolation) {
		this.threads = threads;
		this.isolation = isolation;
	}

	/**
	 * Queues what a claim leased (a suspect first) and wakes handler threads for it.
	 * @param deliveries the leased messages, in claim order
	 * @return {@code false} if the queue is closed (the listener stops): nothing was queued, the caller hands them
	 * back
	 */
	boolean offer(List<Delivery> deliveries) {
		if (deliveries.isEmpty()) {
			return true;
		}
		boolean withSuspect = false;
		synchronized (this.batched) {
			if (!this.open) {
				return false;
			}
			for (Delivery delivery : deliveries) {
				if (delivery.suspect()) {
					this.suspect = delivery;
					withSuspect = true;
				}
				else {
					this.batched.addLast(delivery);
				}
			}
			this.size += deliveries.size();
		}
		if (withSuspect) {
			// handler threads waiting for the held suspect to end take it now
			this.isolation.suspectArrived();
		}
		this.threads.wake(deliveries.size());
		// the thread waiting for a message leased ahead looks again (a suspect may have come first in line)
		this.dueTime.nudge();
		return true;
	}

	/**
	 * Takes the next message to start: the suspect if one waits, else, if {@code batchedAllowed}, the first batched
	 * message if it is due.
	 * @param nowNanos the time now, on the {@link System#nanoTime()} clock
	 * @return the message, or {@code null} if none may start now
	 */
	@Nullable Delivery poll(boolean batchedAllowed, long nowNanos) {
		if (this.size == 0) {
			return null;
		}
		synchronized (this.batched) {
			Delivery next = this.suspect;
			if (next != null) {
				this.suspect = null;
			}
			else if (batchedAllowed) {
				Delivery first = this.batched.peekFirst();
				if (first != null && first.dueNanos() - nowNanos <= 0) {
					next = this.batched.pollFirst();
				}
			}
			if (next != null) {
				this.size--;
			}
			return next;
		}
	}

	/**
	 * Waits on this thread for the due time of the first batched message, unless another thread waits for it
	 * already: the caller then has nothing to start and ends.
	 * @return {@code true} if the caller should {@link #poll} again (the due time came, or something arrived);
	 * {@code false} if nothing waits, another thread waits for it, or the queue is closed
	 */
	boolean awaitHeadDue() {
		long dueNanos;
		synchronized (this.batched) {
			Delivery first = this.batched.peekFirst();
			if (first == null || !this.open) {
				return false;
			}
			dueNanos = first.dueNanos();
		}
		return this.dueTime.await(dueNanos);
	}

	/**
	 * Takes out every batched message waiting (the suspect, if one waits, stays), for the caller to hand back: a
	 * suspect is about to run alone, and the listener keeps nothing else leased meanwhile.
	 * @return the batched messages that waited, in claim order
	 */
	List<Delivery> takeBatched() {
		synchronized (this.batched) {
			List<Delivery> taken = new ArrayList<>(this.batched);
			this.batched.clear();
			this.size -= taken.size();
			this.dueTime.nudge();
			return taken;
		}
	}

	/** Whether a suspect waits to start. */
	boolean hasSuspect() {
		synchronized (this.batched) {
			return this.suspect != null;
		}
	}

	/** Whether a handler thread waits for the due time of a message leased ahead of it (tests). */
	boolean isWaitingForDueTime() {
		return this.dueTime.isWaiting();
	}

	/** How long before a due time a wait stops parking, as learned so far (tests). */
	long earlyWakeNanos() {
		return this.dueTime.earlyWakeNanos();
	}

	/** Messages waiting to start. */
	int size() {
		return this.size;
	}

	/**
	 * Closes the queue for good and takes out what waits, for the caller to hand back unstarted.
	 * @return the messages that waited, the suspect first
	 */
	List<Delivery> close() {
		this.dueTime.end();
		synchronized (this.batched) {
			this.open = false;
			List<Delivery> waiting = new ArrayList<>(this.batched.size() + 1);
			if (this.suspect != null) {
				waiting.add(this.suspect);
			}
			waiting.addAll(this.batched);
			this.batched.clear();
			this.suspect = null;
			this.size = 0;
			return waiting;
		}
	}

}
