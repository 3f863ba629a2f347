package io.github.delayqueue.listener;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;

/**
 * Lets one listener run one suspect at a time: a message whose last attempt started and never finished (its lease
 * ran out, so it may have killed the JVM that ran it). The messages that ran beside a JVM-killing message are
 * suspects too; run one at a time, they no longer meet it again on each of its attempts, so they are charged for
 * its crashes at most once and it uses up its attempts alone.
 * <p>
 * A claim goes through the gate ({@link #claim}): it may lease a suspect only if the gate is open, and closes it
 * while it runs; if it leased no suspect, the gate opens again at once; if it did, the gate stays closed until the
 * suspect's handling is over, however it ends ({@link #suspectEnded()}), and the listener's partitions are then
 * asked to claim the suspects left waiting (others wait for a claim that may lease them: a wake-up, a handover, or
 * the fallback poll).
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
	 * Makes a claim through the gate: it may lease a suspect if no suspect runs and no other claim may lease one;
	 * the gate opens again at once unless it leased one (then {@link #suspectEnded()} opens it).
	 * @param call the claim, given whether it may lease a suspect
	 * @return what the claim leased
	 */
	Claim claim(Function<Boolean, Claim> call) {
		boolean mayLeaseSuspect = this.closed.compareAndSet(false, true);
		boolean leasedSuspect = false;
		try {
			Claim claim = call.apply(mayLeaseSuspect);
			leasedSuspect = claim.messages().stream().anyMatch(ClaimedMessage::suspect);
			return claim;
		}
		finally {
			if (mayLeaseSuspect && !leasedSuspect) {
				this.closed.set(false);
			}
		}
	}

	/** Opens the gate as the suspect's handling is over, and asks for claims. */
	void suspectEnded() {
		this.closed.set(false);
		this.onSuspectEnded.run();
	}

}
