package io.github.delayqueue.listener;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lets one listener run one suspect at a time: a message whose last attempt started and never finished (its lease
 * ran out, so it may have killed the JVM that ran it). The messages that ran beside a JVM-killing message are
 * suspects too; run one at a time, they no longer meet it again on each of its attempts, so they are charged for
 * its crashes at most once and it uses up its attempts alone.
 * <p>
 * A claim enters the gate before it is sent ({@link #tryEnter()}); if it leased no suspect, it leaves at once
 * ({@link #exitWithoutSuspect()}); if it did, the gate stays closed until the suspect's handling is over, however it
 * ends ({@link #suspectEnded()}), and the listener's partitions are then asked to claim the suspects left waiting
 * (others wait for a claim that may lease them: a wake-up, a handover, or the fallback poll).
 * <p>
 * One per listener: a message that kills the JVM still meets the suspects of other listeners of the application.
 */
final class SuspectGate {

	private final AtomicBoolean closed = new AtomicBoolean();

	private final Runnable onSuspectEnded;

	/**
	 * Creates an open gate.
	 * @param onSuspectEnded what runs when a suspect's handling is over (claims, for the suspects left waiting)
	 */
	SuspectGate(Runnable onSuspectEnded) {
		this.onSuspectEnded = onSuspectEnded;
	}

	/** Creates an open gate that asks for nothing when a suspect's handling is over. */
	SuspectGate() {
		this(() -> {
		});
	}

	/**
	 * Closes the gate for a claim that may lease a suspect.
	 * @return {@code true} if the claim may lease one, {@code false} if a suspect runs (or another claim may lease
	 * one)
	 */
	boolean tryEnter() {
		return this.closed.compareAndSet(false, true);
	}

	/** Opens the gate after a claim that entered it leased no suspect. */
	void exitWithoutSuspect() {
		this.closed.set(false);
	}

	/** Opens the gate as the suspect's handling is over, and asks for claims. */
	void suspectEnded() {
		this.closed.set(false);
		this.onSuspectEnded.run();
	}

}
