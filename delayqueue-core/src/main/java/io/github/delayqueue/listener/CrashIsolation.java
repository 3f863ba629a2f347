package io.github.delayqueue.listener;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.Lease;

/**
 * Keeps one listener's suspects apart: a suspect is a message whose lease ran out without an outcome, so it may have
 * killed the JVM that held it (or it only ran beside the message that did). A listener runs one suspect at a time, and
 * runs it alone, with its attempt counted before it starts: a message that kills the JVM uses up its own attempts, and
 * a message that merely ran beside it is charged for no crash.
 * <p>
 * It is state that the listener's parts consult and update; it calls nothing. A claim goes through {@link #claim}: it
 * may lease a suspect only if no suspect is held and no other claim may lease one. While a suspect is held, batched
 * messages start no more ({@link #tryStartBatched()} refuses, and handler threads wait in {@link #awaitTurn}), and the
 * suspect starts once the batched handlers still running have finished ({@link #awaitAlone}). When its handling is
 * over, however it ends ({@link #suspectEnded()}), the waiting handler threads go on.
 * <p>
 * One per listener, kept by its container across restarts: a run started while the previous one still finishes its
 * handlers starts no suspect beside them.
 */
final class CrashIsolation {

	/** How often waiting threads look again whether they are still wanted. */
	private static final long RECHECK_MILLIS = 50;

	/** Closed while a claim that may lease a suspect runs, and while a suspect is held. */
	private final AtomicBoolean gate = new AtomicBoolean();

	private final Object lock = new Object();

	/** Guarded by {@link #lock}. */
	private boolean suspectHeld;

	/** The leases of the batched handlers running now; guarded by {@link #lock}. */
	private final Set<Lease> batchedRunning = new HashSet<>();

	private volatile boolean suspectHeldFlag;

	/**
	 * Makes a claim: it may lease a suspect if none is held and no other claim may lease one.
	 * @param call the claim, given whether it may lease a suspect
	 * @return what the claim leased
	 */
	Claim claim(Function<Boolean, Claim> call) {
		boolean mayLeaseSuspect = this.gate.compareAndSet(false, true);
		boolean leasedSuspect = false;
		try {
			Claim claim = call.apply(mayLeaseSuspect);
			leasedSuspect = mayLeaseSuspect && claim.messages().stream().anyMatch(ClaimedMessage::suspect);
			if (leasedSuspect) {
				synchronized (this.lock) {
					this.suspectHeld = true;
					this.suspectHeldFlag = true;
				}
			}
			return claim;
		}
		finally {
			if (mayLeaseSuspect && !leasedSuspect) {
				this.gate.set(false);
			}
		}
	}

	/** Whether a suspect is held: batched messages do not start until its handling is over. */
	boolean isSuspectHeld() {
		return this.suspectHeldFlag;
	}

	/**
	 * Counts the start of a batched message's handler, unless a suspect is held.
	 * @param lease the message's lease
	 * @return {@code false} if a suspect is held: the message must not start now
	 */
	boolean tryStartBatched(Lease lease) {
		synchronized (this.lock) {
			if (this.suspectHeld) {
				return false;
			}
			this.batchedRunning.add(lease);
			return true;
		}
	}

	/**
	 * Counts the end of a batched message's handler that {@link #tryStartBatched} let start: when its thread returns,
	 * or earlier when its outcome was decided without it (it timed out, or was handed back on stop while it still
	 * ran), so that a handler that never returns holds no suspect back. Idempotent.
	 * @param lease the message's lease
	 */
	void batchedEnded(Lease lease) {
		synchronized (this.lock) {
			if (this.batchedRunning.remove(lease) && this.batchedRunning.isEmpty() && this.suspectHeld) {
				this.lock.notifyAll();
			}
		}
	}

	/**
	 * Waits, on the suspect's handler thread, until no batched handler of the listener runs.
	 * @param stillWanted whether the suspect should still start (checked every few milliseconds)
	 * @return {@code true} once alone; {@code false} if no longer wanted
	 * @throws InterruptedException if interrupted while waiting
	 */
	boolean awaitAlone(BooleanSupplier stillWanted) throws InterruptedException {
		synchronized (this.lock) {
			while (!this.batchedRunning.isEmpty()) {
				if (!stillWanted.getAsBoolean()) {
					return false;
				}
				TimeUnit.MILLISECONDS.timedWait(this.lock, RECHECK_MILLIS);
			}
		}
		return stillWanted.getAsBoolean();
	}

	/**
	 * Waits, on a handler thread that has only batched messages to start, while a suspect is held, until its handling
	 * is over or a suspect arrives to be started ({@link #suspectArrived()}).
	 * @param suspectWaiting whether a suspect waits to start
	 * @param stillWanted whether the thread should still wait (checked every few milliseconds)
	 * @return {@code true} if the suspect's handling is over; {@code false} if a suspect waits or the thread is no
	 * longer wanted
	 */
	boolean awaitTurn(BooleanSupplier suspectWaiting, BooleanSupplier stillWanted) {
		synchronized (this.lock) {
			while (this.suspectHeld) {
				if (suspectWaiting.getAsBoolean() || !stillWanted.getAsBoolean()) {
					return false;
				}
				try {
					TimeUnit.MILLISECONDS.timedWait(this.lock, RECHECK_MILLIS);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return false;
				}
			}
			return true;
		}
	}

	/** Says that a suspect now waits to start: a handler thread waiting in {@link #awaitTurn} takes it. */
	void suspectArrived() {
		synchronized (this.lock) {
			this.lock.notifyAll();
		}
	}

	/** Says the held suspect's handling is over (the call ending its lease has returned): the listener goes on. */
	void suspectEnded() {
		synchronized (this.lock) {
			this.suspectHeld = false;
			this.suspectHeldFlag = false;
			this.lock.notifyAll();
		}
		this.gate.set(false);
	}

}
