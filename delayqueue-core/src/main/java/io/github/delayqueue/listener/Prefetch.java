package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * How many messages one listener holds leased at once (running and claimed ahead), shared between its partitions.
 * <p>
 * A batch size set on the listener is used as it is. By default the size adapts, between twice the concurrency and
 * {@value #MAX_ADAPTIVE}: to keep the handlers busy, a consumer must hold what they finish during one claim's round
 * trip, so it holds twice the concurrency plus twice that product (handler throughput times claim round trip, both
 * smoothed). Where the handlers are the limit (they are slow, or Redis is near), the product is small and the size
 * stays at twice the concurrency, so a consumer keeps no more than it needs from other instances; where claims are
 * the limit (Redis a millisecond or more away, quick handlers), the size grows until it is not.
 */
final class Prefetch {

	/** The most an adaptive size grows to. */
	static final int MAX_ADAPTIVE = 128;

	/** How long a throughput sample runs at least. */
	private static final long SAMPLE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

	/** The weight of a new sample in the smoothed figures. */
	private static final double WEIGHT = 0.5;

	private final int floor;

	private final int ceiling;

	private final LongAdder completed = new LongAdder();

	private final Object lock = new Object();

	/** Smoothed claim round trip; guarded by {@link #lock}. */
	private double roundTripNanos;

	/** Smoothed handler throughput, messages per nanosecond; guarded by {@link #lock}. */
	private double perNano;

	private final LongSupplier nanoTime;

	private long sampleStart;

	private long sampleCompleted;

	private volatile int size;

	/**
	 * Creates a listener's prefetch.
	 * @param options the listener's options: a batch size set there is fixed, else the size adapts from twice the
	 * concurrency
	 */
	Prefetch(ListenerOptions options) {
		this(options, options.concurrency(), System::nanoTime);
	}

	/**
	 * Creates the prefetch of a listener that handles up to {@code capacity} messages at once: its concurrency, or,
	 * for a handler whose work completes later, its most messages in flight. Unless a batch size is set, the size
	 * adapts from twice that.
	 */
	Prefetch(ListenerOptions options, int capacity) {
		this(options, capacity, System::nanoTime);
	}

	/**
	 * Creates a listener's prefetch on a given monotonic clock (for tests).
	 */
	Prefetch(ListenerOptions options, LongSupplier nanoTime) {
		this(options, options.concurrency(), nanoTime);
	}

	private Prefetch(ListenerOptions options, int capacity, LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
		this.sampleStart = nanoTime.getAsLong();
		this.floor = options.isBatchSizeSet() ? options.batchSize() : Math.min(1000, 2 * capacity);
		this.ceiling = options.isBatchSizeSet() ? this.floor : Math.max(this.floor, MAX_ADAPTIVE);
		this.size = this.floor;
	}

	/** The most messages the listener holds leased now. */
	int size() {
		return this.size;
	}

	/**
	 * The most messages one of the listener's partitions holds leased now.
	 * @param partitions how many partitions the listener consumes
	 */
	int share(int partitions) {
		return Math.max(1, (this.size + partitions - 1) / partitions);
	}

	/** A handler finished a message (whatever came of it). */
	void completed() {
		this.completed.increment();
	}

	/**
	 * A claim came back.
	 * @param roundTripNanos how long it took
	 */
	void claimed(long roundTripNanos) {
		if (this.ceiling == this.floor) {
			return;
		}
		synchronized (this.lock) {
			this.roundTripNanos = (this.roundTripNanos == 0) ? roundTripNanos
					: (1 - WEIGHT) * this.roundTripNanos + WEIGHT * roundTripNanos;
			long now = this.nanoTime.getAsLong();
			long elapsed = now - this.sampleStart;
			if (elapsed >= SAMPLE_NANOS) {
				long total = this.completed.sum();
				double rate = (total - this.sampleCompleted) / (double) elapsed;
				this.perNano = (1 - WEIGHT) * this.perNano + WEIGHT * rate;
				this.sampleStart = now;
				this.sampleCompleted = total;
			}
			double inFlightPerRoundTrip = this.perNano * this.roundTripNanos;
			long target = this.floor + Math.round(2 * inFlightPerRoundTrip);
			this.size = (int) Math.min(this.ceiling, Math.max(this.floor, target));
		}
	}

}
