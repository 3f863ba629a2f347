package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.delayqueue.redis.internal.Lease;
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

	/** Runs a batch listener's calls; {@code null} for a listener of one message per call. */
	private final @Nullable BatchRunner batches;

	private volatile boolean active;

	/**
	 * Creates the loop of a listener's handler threads.
	 * @param context what the listener's parts share
	 * @param partitions the listener's partitions, by index
	 * @param threads the threads it runs on (for the task decorator)
	 * @param runner runs each message
	 */
	HandlerLoop(ListenerContext context, List<Partition> partitions, HandlerThreads threads, MessageRunner runner) {
		this(context, partitions, threads, runner, null);
	}

	/**
	 * Creates the loop of a listener's handler threads.
	 * @param context what the listener's parts share
	 * @param partitions the listener's partitions, by index
	 * @param threads the threads it runs on (for the task decorator)
	 * @param runner runs each message, and holds the work in flight
	 * @param batches runs the calls of a batch listener, or {@code null} for a listener of one message per call
	 */
	HandlerLoop(ListenerContext context, List<Partition> partitions, HandlerThreads threads, MessageRunner runner,
			@Nullable BatchRunner batches) {
		this.context = context;
		this.partitions = partitions;
		this.threads = threads;
		this.runner = runner;
		this.batches = batches;
	}

	/** Starts messages from now on. */
	void start() {
		this.active = true;
	}

	/** Starts no more messages (closing the ready queue ends the wait for a due time). */
	void stop() {
		this.active = false;
	}

	/**
	 * A handler thread's run: settles the outcomes of handlers' work that completed, and takes and handles messages
	 * while any may start.
	 */
	void work() {
		while (true) {
			this.runner.pending().settleCompleted();
			Delivery next = take();
			if (next == null) {
				return;
			}
			if (this.batches != null && !next.suspect()) {
				try {
					startBatch(gather(next));
				}
				finally {
					this.partitions.forEach(Partition::refill);
				}
				continue;
			}
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
	 * The next message that may start, unless handlers' work in flight uses all the room: while a suspect is held, only a suspect, and the thread waits meanwhile if
	 * batched messages are waiting for the suspect's handling to end; else the first batched message once it is due,
	 * one thread waiting for that while the others end.
	 * @return the message, or {@code null} if none may start (the thread ends)
	 */
	private @Nullable Delivery take() {
		CrashIsolation isolation = this.context.isolation();
		ReadyQueue ready = this.context.ready();
		while (this.active && this.runner.pending().hasRoom()) {
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

	/**
	 * A batch listener's call: the first message and the others due behind it, up to the most a call takes; if fewer
	 * are ready, the call waits up to the listener's batch wait for more, while a claim could still bring some (the
	 * call holds under half the listener's prefetch) and no suspect is held. Each message taken counts as a batched
	 * handler starting, so that a suspect waits for the call to end; one that may not start (a suspect was leased
	 * meanwhile) goes back, and the gathering stops.
	 * @return the messages admitted, each counted as started with the listener's {@link CrashIsolation}
	 */
	private List<Delivery> gather(Delivery first) {
		ListenerOptions options = this.context.options();
		CrashIsolation isolation = this.context.isolation();
		ReadyQueue ready = this.context.ready();
		int max = options.batchMaxMessages();
		List<Delivery> admitted = new ArrayList<>(Math.min(max, 1 + ready.size()));
		List<Delivery> refused = new ArrayList<>(0);
		try {
			admit(List.of(first), admitted, refused);
			if (refused.isEmpty()) {
				takeDue(admitted, refused, max);
			}
			long waitNanos = options.batchMaxWait().toNanos();
			int worthWaiting = Math.min(max, this.context.prefetch().size() / 2);
			if (waitNanos > 0 && admitted.size() < worthWaiting && refused.isEmpty()) {
				long deadline = System.nanoTime() + waitNanos;
				while (admitted.size() < worthWaiting && refused.isEmpty() && this.active
						&& !isolation.isSuspectHeld() && ready.awaitMore(deadline)) {
					// work completed meanwhile is settled here: this thread may be the only one awake
					this.runner.pending().settleCompleted();
					takeDue(admitted, refused, max);
				}
				if (refused.isEmpty() && !isolation.isSuspectHeld()) {
					// what fell due as the wait ended
					takeDue(admitted, refused, max);
				}
			}
		}
		catch (RuntimeException | Error ex) {
			admitted.forEach((each) -> isolation.batchedEnded(each.message().lease()));
			refused.addAll(admitted);
			throw ex;
		}
		finally {
			// back, unstarted and uncharged, to be leased again after the suspect
			handBack(refused);
		}
		return admitted;
	}

	private void takeDue(List<Delivery> admitted, List<Delivery> refused, int max) {
		List<Delivery> taken = new ArrayList<>();
		this.context.ready().pollDue(taken, max - admitted.size(), System.nanoTime());
		admit(taken, admitted, refused);
	}

	private void admit(List<Delivery> taken, List<Delivery> admitted, List<Delivery> refused) {
		CrashIsolation isolation = this.context.isolation();
		for (Delivery delivery : taken) {
			if (refused.isEmpty() && isolation.tryStartBatched(delivery.message().lease())) {
				admitted.add(delivery);
			}
			else {
				refused.add(delivery);
			}
		}
	}

	/** Runs a batch listener's call with the messages {@link #gather} admitted. */
	private void startBatch(List<Delivery> admitted) {
		if (admitted.isEmpty()) {
			return;
		}
		CrashIsolation isolation = this.context.isolation();
		CompletableFuture<Void> settled = null;
		try {
			if (this.active) {
				BatchRunner runs = this.batches;
				settled = decorateAndRun(admitted, () -> runs.run(admitted));
			}
			else {
				handBack(admitted);
			}
		}
		finally {
			if (settled == null) {
				admitted.forEach((each) -> isolation.batchedEnded(each.message().lease()));
			}
			else {
				settled.whenComplete((done, failure) -> admitted
					.forEach((each) -> isolation.batchedEnded(each.message().lease())));
			}
		}
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
		CompletableFuture<Void> settled = null;
		try {
			if (this.active) {
				settled = decorateAndRun(delivery, partition);
			}
			else {
				partition.handBack(lease);
			}
		}
		finally {
			if (settled == null) {
				isolation.batchedEnded(lease);
			}
			else {
				// its work completes later: it counts as running until its outcome is settled
				settled.whenComplete((done, failure) -> isolation.batchedEnded(lease));
			}
		}
	}

	/**
	 * Runs a suspect alone: once no batched handler runs and the acknowledgements of those before it are in Redis
	 * (a suspect that kills the JVM must not take their outcome down with it). When the call that ends its lease has
	 * returned, the listener goes on and every partition claims (the next suspect).
	 */
	private void startSuspect(Delivery delivery, Partition partition) {
		Lease lease = delivery.message().lease();
		CompletableFuture<Void> settled = null;
		try {
			boolean alone = awaitAlone();
			if (alone) {
				handBackBatched();
				Duration settleFor = this.context.options().visibilityTimeout();
				this.partitions.forEach((each) -> each.acknowledger().settle(settleFor));
			}
			if (alone && this.active) {
				settled = decorateAndRun(delivery, partition);
			}
			else {
				// stopped meanwhile (while it waited to be alone, or for the acknowledgements to settle)
				partition.handBack(lease);
			}
		}
		finally {
			if (settled == null) {
				suspectEnded(partition, lease);
			}
			else {
				// its work completes later: it runs alone until its outcome is settled
				settled.whenComplete((done, failure) -> suspectEnded(partition, lease));
			}
		}
	}

	private void suspectEnded(Partition partition, Lease lease) {
		// opens the isolation if its lease has ended by now (else when the hand-back on stop ends it)
		partition.leases().ended(lease);
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

	/** Runs one message (a batch listener's suspect: a call of its own) in the task decorator. */
	private @Nullable CompletableFuture<Void> decorateAndRun(Delivery delivery, Partition partition) {
		BatchRunner runs = this.batches;
		return decorateAndRun(List.of(delivery),
				(runs != null) ? () -> runs.run(List.of(delivery)) : () -> this.runner.run(delivery, partition));
	}

	/**
	 * Runs the handling in the task decorator. If anything throws before the outcome was decided (the decorator,
	 * reading the message), the leases still held go back at once rather than being extended for ever; the leases of
	 * work that completes later stay held until its outcome is settled.
	 * @return {@code null} if the outcome is settled; else a future completing once it is
	 */
	private @Nullable CompletableFuture<Void> decorateAndRun(List<Delivery> deliveries,
			Supplier<@Nullable CompletableFuture<Void>> run) {
		CompletableFuture<Void> settled = null;
		try {
			if (!this.threads.isDecorated()) {
				settled = run.get();
			}
			else {
				List<CompletableFuture<Void>> pending = new ArrayList<>(1);
				this.threads.decorate(() -> {
					CompletableFuture<Void> started = run.get();
					if (started != null) {
						pending.add(started);
					}
				}).run();
				settled = pending.isEmpty() ? null : pending.get(0);
			}
		}
		catch (RuntimeException ex) {
			logger.warn("Topic '{}': message '{}'{} could not be handled (the task decorator, or reading it, failed "
					+ "outside the handler); it goes back to the queue", this.context.topic(),
					deliveries.get(0).message().id(),
					(deliveries.size() > 1) ? " and " + (deliveries.size() - 1) + " more in its batch" : "", ex);
		}
		finally {
			if (settled == null) {
				// no-ops for the leases whose outcome took them
				handBack(deliveries);
			}
		}
		return settled;
	}

}
