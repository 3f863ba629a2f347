package io.github.delayqueue.dashboard;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The latest samples of one topic, oldest first, in a ring of fixed size: a dashboard's memory per topic is bounded
 * whatever runs.
 *
 * @since 1.0.0
 */
public final class TopicHistory {

	private final TopicSample[] ring;

	private int next;

	private int size;

	/**
	 * Creates an empty history.
	 * @param capacity how many samples it keeps, at least 2 (a rate needs two)
	 */
	public TopicHistory(int capacity) {
		Assert.isTrue(capacity >= 2, () -> "A history keeps at least 2 samples, but capacity was " + capacity);
		this.ring = new TopicSample[capacity];
	}

	/**
	 * Adds the newest sample, dropping the oldest if the ring is full.
	 * @param sample the sample
	 */
	public synchronized void add(TopicSample sample) {
		Assert.notNull(sample, "Sample must not be null");
		this.ring[this.next] = sample;
		this.next = (this.next + 1) % this.ring.length;
		this.size = Math.min(this.size + 1, this.ring.length);
	}

	/**
	 * The samples kept, oldest first.
	 * @return a copy of them
	 */
	public synchronized List<TopicSample> samples() {
		List<TopicSample> samples = new ArrayList<>(this.size);
		int first = (this.next - this.size + this.ring.length) % this.ring.length;
		for (int i = 0; i < this.size; i++) {
			samples.add(this.ring[(first + i) % this.ring.length]);
		}
		return samples;
	}

	/**
	 * The newest sample.
	 * @return the sample, or {@code null} if none was taken yet
	 */
	public synchronized @Nullable TopicSample latest() {
		return (this.size == 0) ? null : this.ring[(this.next - 1 + this.ring.length) % this.ring.length];
	}

	/**
	 * How many samples it keeps at most.
	 * @return the capacity
	 */
	public int capacity() {
		return this.ring.length;
	}

}
