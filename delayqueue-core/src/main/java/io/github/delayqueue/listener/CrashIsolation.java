package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;

/**
 * Keeps one listener's suspects apart: a suspect is a message whose lease ran out without an outcome, so it may have
 * killed the JVM that held it (or it only ran beside the message that did). A listener runs one suspect at a time, and
 * runs it alone, with its attempt counted before it starts: a message that kills the JVM uses up its own attempts, and
 * a message that merely ran beside it is charged for no crash.
 * <p>
 * A claim goes through {@link #claim}: it may lease a suspect only if no suspect is held and no other claim may lease
 * one. While a suspect is held, batched messages start no more ({@link #tryStartBatched()} refuses), and the suspect
 * starts once the batched handlers still running have finished ({@link #awaitAlone}). When its handling is over,
 * however it ends ({@link #suspectEnded()}), batched messages start again and the listener's partitions are asked to
 * claim (the next suspect among them).
 * <p>
 * One per listener (kept by its container across restarts): a message that kills the JVM still meets what other
 * listeners of the application run.
 */
final class CrashIsolation {

	/** Closed while a claim that may lease a suspect runs, and while a suspect is held. */
	private final AtomicBoolean gate = new AtomicBoolean();

	private final Object lock = new Object();

	/** Guarded by {@link #lock}. */
	private boolean suspectHeld;

	/** Batched handlers running now; guarded by {@link #lock}. */
	private int batchedRunning;

	private volatile boolean suspectHeldFlag;

	private volatile Runnable onSuspectEnded;

	private volatile Runnable beforeSuspect = () -> {
	};

	/**
	 * Creates the isolation of one listener.
	 * @param onSuspectEnded what runs when a suspect's handling is over (start what waits, claim the next suspects)
	 */
	CrashIsolation(Runnable onSuspectEnded) {
		this.onSuspectEnded = onSuspectEnded;
	}

	/**
	 * Sets what runs when a suspect's handling is over: the container keeps one isolation for all its runs, so
	 * that a run started while the previous one still finishes its handlers does not start a suspect beside them;
	 * each run, as it starts, takes over this callback.
	 * @param onSuspectEnded what runs
	 */
	void onSuspectEnded(Runnable onSuspectEnded) {
		this.onSuspectEnded = onSuspectEnded;
	}

	/**
	 * Sets what runs once a suspect may start (no batched handler runs), just before it does: the listener sends
	 * the acknowledgements its batched handlers left waiting, so that a suspect that kills the JVM cannot take the
	 * outcome of a neighbour that finished before it down with it.
	 * @param beforeSuspect what runs
	 */
	void beforeSuspect(Runnable beforeSuspect) {
		this.beforeSuspect = beforeSuspect;
	}

	/** Runs what must happen before a suspect starts (see {@link #beforeSuspect(Runnable)}). */
	void suspectStarting() {
		this.beforeSuspect.run();
	}

	/** Creates an isolation that asks for nothing when a suspect's handling is over. */
	CrashIsolation() {
		this(() -> {
		});
	}

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
	 * @return {@code false} if a suspect is held: the message must not start now
	 */
	boolean tryStartBatched() {
		synchronized (this.lock) {
			if (this.suspectHeld) {
				return false;
			}
			this.batchedRunning++;
			return true;
		}
	}

	/** Counts the end of a batched message's handler that {@link #tryStartBatched()} let start. */
	void batchedEnded() {
		synchronized (this.lock) {
			if (--this.batchedRunning == 0 && this.suspectHeld) {
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
			while (this.batchedRunning > 0) {
				if (!stillWanted.getAsBoolean()) {
					return false;
				}
				TimeUnit.MILLISECONDS.timedWait(this.lock, 50);
			}
		}
		return stillWanted.getAsBoolean();
	}

	/** Says the held suspect's handling is over (the call ending its lease has returned): the listener goes on. */
	void suspectEnded() {
		synchronized (this.lock) {
			this.suspectHeld = false;
			this.suspectHeldFlag = false;
		}
		this.gate.set(false);
		this.onSuspectEnded.run();
	}

}
