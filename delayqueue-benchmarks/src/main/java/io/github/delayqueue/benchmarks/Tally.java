package io.github.delayqueue.benchmarks;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.benchmarks.QueueUnderTest.Message;
import org.jspecify.annotations.Nullable;

/**
 * Counts a consumer's deliveries and their lateness, by the intended due time carried in the payload: distinct,
 * duplicated and early deliveries, the last handler start, and, where the queue tells its handlers the due time it
 * stored, how late that due time is and how late the handler starts after it.
 */
final class Tally {

	/**
	 * The payloads seen, one per message (a payload carries the message's id). Sized for the run, and holding the
	 * delivered payload itself, so that counting costs the system's JVM one set entry per message: the harness's own
	 * allocation is counted as the system's.
	 */
	private final Set<String> seen;

	final AtomicInteger unique = new AtomicInteger();

	final AtomicInteger duplicated = new AtomicInteger();

	final AtomicInteger early = new AtomicInteger();

	final AtomicLong lastHandledMicros = new AtomicLong();

	final Samples lateness;

	/** Stored due time minus intended due time: how late the queue's stored due time is. */
	final Samples storedLate;

	/** Handler start minus the stored due time: how late the handler starts after it. */
	final Samples afterStored;

	/**
	 * A tally for a run.
	 * @param expected how many messages the run sends
	 */
	Tally(int expected) {
		this.seen = ConcurrentHashMap.newKeySet(expected + expected / 2);
		this.lateness = new Samples(expected);
		this.storedLate = new Samples(expected);
		this.afterStored = new Samples(expected);
	}

	void handle(String payload, long storedDueMicros) {
		long now = Workloads.nowMicros();
		long intended = Message.dueMicrosOf(payload);
		long late = now - intended;
		this.lateness.add(late);
		if (storedDueMicros != QueueUnderTest.Handler.NO_STORED_DUE) {
			this.storedLate.add(storedDueMicros - intended);
			this.afterStored.add(now - storedDueMicros);
		}
		if (late < 0) {
			this.early.incrementAndGet();
		}
		this.lastHandledMicros.accumulateAndGet(now, Math::max);
		if (this.seen.add(payload)) {
			this.unique.incrementAndGet();
		}
		else {
			this.duplicated.incrementAndGet();
		}
	}

	Paced result(int sent, double sendRate) {
		return result(sent, sendRate, null);
	}

	Paced result(int sent, double sendRate, Costs.@Nullable Cost cost) {
		Samples.Summary summary = this.lateness.summary();
		long maxError = Math.max(Math.abs(summary.min()), Math.abs(summary.max()));
		return new Paced(sent, this.unique.get(), sent - this.unique.get(), this.duplicated.get(), this.early.get(),
				summary, sendRate, maxError, this.storedLate.summary(), this.afterStored.summary(), cost);
	}

	/**
	 * What a paced run saw.
	 *
	 * @param sent messages sent
	 * @param received distinct messages received
	 * @param lost messages never received
	 * @param duplicated deliveries beyond the first
	 * @param early deliveries before the intended due time
	 * @param lateness handler start minus intended due time, in microseconds
	 * @param sendRate messages per second actually sent
	 * @param maxErrorMicros the largest |actual − intended delay|, in microseconds
	 * @param storedLate the due time the queue stored minus the intended one, where its handlers are told it
	 * @param afterStored handler start minus the due time the queue stored, where its handlers are told it
	 * @param cost what sending and delivering cost per message, from the first send to the last delivery (or to the
	 * end of the wait for it); {@code null} where not measured
	 */
	record Paced(int sent, int received, int lost, int duplicated, int early, Samples.Summary lateness,
			double sendRate, long maxErrorMicros, Samples.Summary storedLate, Samples.Summary afterStored,
			Costs.@Nullable Cost cost) {
	}

}
