package io.github.delayqueue.listener;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Lets one listener run one suspect at a time: a message whose last attempt started and never finished (its lease
 * ran out, so it may have killed the JVM that ran it). The messages that ran beside a JVM-killing message are
 * suspects too; run one at a time, they no longer meet it again on each of its attempts, so they are charged for
 * its crashes at most once and it uses up its attempts alone.
 * <p>
 * A claim enters the gate before it is sent ({@link #tryEnter()}); if it leased no suspect, it leaves at once
 * ({@link #leave()}); if it did, the gate stays closed until the suspect's lease ends, however it ends
 * ({@link #release()}), and the listener's partitions are then asked to claim the suspects left waiting.
 */
final class SuspectGate {

	private final AtomicBoolean closed = new AtomicBoolean();

	private volatile Runnable onRelease = () -> {
	};

	/**
	 * Sets what runs when a suspect's lease ended (claims, for the suspects left waiting).
	 * @param onRelease the action
	 */
	void onRelease(Runnable onRelease) {
		this.onRelease = onRelease;
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
	void leave() {
		this.closed.set(false);
	}

	/** Opens the gate as the suspect's lease ended, and asks for claims. */
	void release() {
		this.closed.set(false);
		this.onRelease.run();
	}

	boolean isClosed() {
		return this.closed.get();
	}

}
