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

	/** Handler threads waiting for more messages for a batch call; guarded by {@link #batched}. */
	private int batchWaiters;

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
			if (this.batchWaiters > 0) {
				// a batch listener's call waits for more messages
				this.batched.notifyAll();
			}
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
	 * Takes batched messages that are due, in line, for a batch listener's call, up to a number: none while a suspect
	 * waits (it goes first, alone).
	 * @param into where they go
	 * @param max the most {@code into} may hold
	 * @param nowNanos the time now, on the {@link System#nanoTime()} clock
	 */
	void pollDue(List<Delivery> into, int max, long nowNanos) {
		if (this.size == 0) {
			return;
		}
		synchronized (this.batched) {
			while (into.size() < max && this.suspect == null) {
				Delivery first = this.batched.peekFirst();
				if (first == null || first.dueNanos() - nowNanos > 0) {
					return;
				}
				into.add(this.batched.pollFirst());
				this.size--;
			}
		}
	}

	/**
	 * Waits, for a batch listener's call that has fewer messages than it may take, until more may be taken: until a
	 * message arrives, the first in line falls due, handler work completes, or the deadline.
	 * @param deadlineNanos until when at most, on the {@link System#nanoTime()} clock
	 * @return {@code false} if the deadline passed, a suspect waits or the queue is closed
	 */
	boolean awaitMore(long deadlineNanos) {
		synchronized (this.batched) {
			long now = System.nanoTime();
			if (deadlineNanos - now <= 0 || !this.open || this.suspect != null) {
				return false;
			}
			long until = deadlineNanos;
			Delivery first = this.batched.peekFirst();
			if (first != null && first.dueNanos() - until < 0) {
				until = first.dueNanos();
			}
			long left = until - now;
			if (left > 0) {
				this.batchWaiters++;
				try {
					// to the millisecond, rounded up: the wait is a bound on lateness, not a timing promise
					this.batched.wait((left + 999_999) / 1_000_000);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
				finally {
					this.batchWaiters--;
				}
			}
			return this.open;
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

	/**
	 * Says that a handler's work completed (its outcome waits to be settled, and the room it held is free): wakes a
	 * handler thread, which settles it and starts what waits.
	 */
	void roomFreed() {
		this.threads.wake(1);
		synchronized (this.batched) {
			if (this.batchWaiters > 0) {
				// a batch listener's threads may all be gathering: one of them settles it
				this.batched.notifyAll();
			}
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
			this.batched.notifyAll();
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
