package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.redis.Lease;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each of a listener's handler threads runs: it takes messages from the listener's {@link ReadyQueue} and runs
 * them with the {@link MessageRunner}, until none may start. It consults the listener's {@link CrashIsolation}: while a
 * suspect is held, batched messages wait (and so does the thread, if it has nothing else to start); a suspect starts
 * once no batched handler runs, after the acknowledgements of the handlers before it are in Redis, and when its
 * handling is over every partition is asked to claim (the next suspect among them). A batched message leased ahead of
 * its due time is taken at its due time: one thread waits for it ({@link ReadyQueue#awaitHeadDue()}) and the others
 * end meanwhile. The task decorator wraps each message's handling.
 */
final class HandlerLoop {

	private static final Logger logger = LoggerFactory.getLogger(HandlerLoop.class);

	private final ListenerContext context;

	private final List<Partition> partitions;

	private final HandlerThreads threads;

	private final MessageRunner runner;

	private volatile boolean active;

	/**
	 * Creates the loop of a listener's handler threads.
	 * @param context what the listener's parts share
	 * @param partitions the listener's partitions, by index
	 * @param threads the threads it runs on (for the task decorator)
	 * @param runner runs each message
	 */
	HandlerLoop(ListenerContext context, List<Partition> partitions, HandlerThreads threads, MessageRunner runner) {
		this.context = context;
		this.partitions = partitions;
		this.threads = threads;
		this.runner = runner;
	}

	/** Starts messages from now on. */
	void start() {
		this.active = true;
	}

	/** Starts no more messages (closing the ready queue ends the wait for a due time). */
	void stop() {
		this.active = false;
	}

	/** A handler thread's run: takes and handles messages while any may start. */
	void work() {
		Delivery next;
		while ((next = take()) != null) {
			Partition partition = this.partitions.get(next.partition());
			try {
				start(next, partition);
			}
			finally {
				// its lease has ended (or gone back): claim more if messages are due and half the share is free
				partition.refill();
			}
		}
	}

	/**
	 * The next message that may start: while a suspect is held, only a suspect, and the thread waits meanwhile if
	 * batched messages are waiting for the suspect's handling to end; else the first batched message once it is due,
	 * one thread waiting for that while the others end.
	 * @return the message, or {@code null} if none may start (the thread ends)
	 */
	private @Nullable Delivery take() {
		CrashIsolation isolation = this.context.isolation();
		ReadyQueue ready = this.context.ready();
		while (this.active) {
			Delivery next = ready.poll(!isolation.isSuspectHeld(), System.nanoTime());
			if (next != null) {
				return next;
			}
			if (ready.size() == 0) {
				return null;
			}
			if (isolation.isSuspectHeld()) {
				if (isolation.awaitTurn(ready::hasSuspect, () -> this.active && ready.size() > 0)) {
					// the suspect's handling is over (perhaps in a run stopped meanwhile): the next one may be leased
					this.partitions.forEach(Partition::requestClaim);
				}
			}
			else if (ready.awaitHeadDue()) {
				// due now (or something arrived): what else is due needs threads besides this one
				this.threads.wake(ready.size() - 1);
			}
			else {
				// another thread waits for the first due time: this one's slot stays free for a message that is due
				return null;
			}
		}
		return null;
	}

	private void start(Delivery delivery, Partition partition) {
		if (delivery.suspect()) {
			startSuspect(delivery, partition);
			return;
		}
		Lease lease = delivery.message().lease();
		CrashIsolation isolation = this.context.isolation();
		if (!isolation.tryStartBatched(lease)) {
			// a suspect was leased meanwhile: the listener keeps nothing else leased while it runs, so this one goes
			// back (unstarted, uncharged) and is leased again after it
			partition.handBack(lease);
			return;
		}
		try {
			if (this.active) {
				decorateAndRun(delivery, partition);
			}
			else {
				partition.handBack(lease);
			}
		}
		finally {
			isolation.batchedEnded(lease);
		}
	}

	/**
	 * Runs a suspect alone: once no batched handler runs and the acknowledgements of those before it are in Redis
	 * (a suspect that kills the JVM must not take their outcome down with it). When the call that ends its lease has
	 * returned, the listener goes on and every partition claims (the next suspect).
	 */
	private void startSuspect(Delivery delivery, Partition partition) {
		Lease lease = delivery.message().lease();
		try {
			boolean alone = awaitAlone();
			if (alone) {
				handBackBatched();
				Duration settleFor = this.context.options().visibilityTimeout();
				this.partitions.forEach((each) -> each.acknowledger().settle(settleFor));
			}
			if (alone && this.active) {
				decorateAndRun(delivery, partition);
			}
			else {
				// stopped meanwhile (while it waited to be alone, or for the acknowledgements to settle)
				partition.handBack(lease);
			}
		}
		finally {
			// opens the isolation if its lease has ended by now (else when the hand-back on stop ends it)
			partition.leases().ended(lease);
		}
		this.threads.wake(this.context.ready().size());
		this.partitions.forEach(Partition::requestClaim);
	}

	/**
	 * Hands back the batched messages waiting (leased before the suspect was), unstarted and uncharged: if the suspect
	 * kills the JVM, they are not left leased to become suspects in turn. They are leased again after it.
	 */
	private void handBackBatched() {
		handBack(this.context.ready().takeBatched());
	}

	/**
	 * Hands leased messages that never started back to the queue at once, unstarted and uncharged, each through the
	 * partition that leased it (one call per partition).
	 * @param deliveries the messages
	 */
	void handBack(List<Delivery> deliveries) {
		if (deliveries.isEmpty()) {
			return;
		}
		List<List<Lease>> byPartition = new ArrayList<>(this.partitions.size());
		this.partitions.forEach((each) -> byPartition.add(new ArrayList<>()));
		for (Delivery delivery : deliveries) {
			byPartition.get(delivery.partition()).add(delivery.message().lease());
		}
		for (Partition each : this.partitions) {
			List<Lease> leases = byPartition.get(each.index());
			if (!leases.isEmpty()) {
				each.handBack(leases);
			}
		}
	}

	private boolean awaitAlone() {
		try {
			return this.context.isolation().awaitAlone(() -> this.active);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * Runs the handling in the task decorator. If anything throws before the outcome was decided (the decorator,
	 * reading the message), the lease still held goes back at once rather than being extended for ever.
	 */
	private void decorateAndRun(Delivery delivery, Partition partition) {
		try {
			this.threads.decorate(() -> this.runner.run(delivery, partition)).run();
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': message '{}' could not be handled (the task decorator, or reading it, failed "
					+ "outside the handler); it goes back to the queue", this.context.topic(), delivery.message().id(),
					ex);
		}
		finally {
			partition.handBack(delivery.message().lease());
		}
	}

}
