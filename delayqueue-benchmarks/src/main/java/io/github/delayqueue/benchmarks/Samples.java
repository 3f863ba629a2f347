package io.github.delayqueue.benchmarks;

import java.util.Arrays;

/**
 * Values recorded from many threads (latencies in microseconds, say), summarised by exact percentiles. Every
 * value is kept: the benchmark records at most a few million.
 */
final class Samples {

	private long[] values;

	private int size;

	Samples() {
		this(1024);
	}

	/**
	 * Samples with room for a number of values without growing (growing copies them all, on a handler thread).
	 * @param expected how many values are expected
	 */
	Samples(int expected) {
		this.values = new long[Math.max(16, expected)];
	}

	synchronized void add(long value) {
		if (this.size == this.values.length) {
			this.values = Arrays.copyOf(this.values, this.size * 2);
		}
		this.values[this.size++] = value;
	}

	synchronized int size() {
		return this.size;
	}

	/**
	 * The summary of what was recorded so far.
	 * @return the summary, or one with {@code count == 0} if nothing was recorded
	 */
	synchronized Summary summary() {
		long[] sorted = Arrays.copyOf(this.values, this.size);
		Arrays.sort(sorted);
		if (sorted.length == 0) {
			return new Summary(0, 0, 0, 0, 0, 0, 0);
		}
		long sum = 0;
		for (long value : sorted) {
			sum += value;
		}
		return new Summary(sorted.length, sorted[0], percentile(sorted, 50), percentile(sorted, 99),
				percentile(sorted, 99.9), sorted[sorted.length - 1], sum / sorted.length);
	}

	private static long percentile(long[] sorted, double percent) {
		int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
		return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
	}

	/**
	 * A summary of recorded values.
	 *
	 * @param count how many
	 * @param min the smallest
	 * @param p50 the median
	 * @param p99 the 99th percentile
	 * @param p999 the 99.9th percentile
	 * @param max the largest
	 * @param mean the mean
	 */
	record Summary(int count, long min, long p50, long p99, long p999, long max, long mean) {
	}

}
