package io.github.delayqueue.benchmarks;

import java.util.List;

/**
 * The sizes of one benchmark run.
 *
 * @param mode the mode's name: {@code smoke}, {@code quick} or {@code full}
 * @param scheduleCount messages per schedule-throughput run
 * @param lowRate the first steady rate, messages per second
 * @param lowSeconds how long the first rate is kept up
 * @param highRate the second steady rate, messages per second
 * @param highSeconds how long the second rate is kept up
 * @param minDelayMillis shortest delay of the steady runs and the loss report
 * @param maxDelayMillis longest delay of the steady runs and the loss report
 * @param drainCount messages due within one second in the drain run
 * @param sizes numbers of waiting messages for the cost-against-size runs
 * @param latencySamples samples per latency figure
 * @param slowSamples samples for an operation that is O(n) (Redisson's remove), also bounded in time
 * @param lossRounds rounds of the loss report
 * @param lossMessages messages per round of the loss report, sent 10 ms apart
 * @param ceilingRequests requests for redis-benchmark's ceiling (0: skip it)
 */
record Settings(String mode, int scheduleCount, int lowRate, int lowSeconds, int highRate, int highSeconds,
		int minDelayMillis, int maxDelayMillis, int drainCount, List<Integer> sizes, int latencySamples,
		int slowSamples, int lossRounds, int lossMessages, int ceilingRequests) {

	/** Tiny sizes: only proves that every scenario still runs (the smoke test). */
	static Settings smoke() {
		return new Settings("smoke", 500, 100, 1, 500, 1, 100, 400, 500, List.of(1_000), 20, 3, 1, 30, 0);
	}

	/** Every scenario in a few minutes. */
	static Settings quick() {
		return new Settings("quick", 20_000, 1_000, 5, 10_000, 2, 1_000, 4_000, 20_000, List.of(10_000, 100_000),
				200, 10, 3, 200, 100_000);
	}

	/** The sizes the quality bars are stated in. */
	static Settings full(boolean huge) {
		List<Integer> sizes = huge ? List.of(10_000, 1_000_000, 10_000_000) : List.of(10_000, 1_000_000);
		return new Settings("full", 100_000, 1_000, 20, 10_000, 10, 1_000, 4_000, 100_000, sizes, 500, 20, 3, 1_000,
				300_000);
	}

	static Settings of(String mode, boolean huge) {
		return switch (mode) {
			case "smoke" -> smoke();
			case "quick" -> quick();
			case "full" -> full(huge);
			default -> throw new IllegalArgumentException("Unknown mode '" + mode + "': use smoke, quick or full");
		};
	}

}
