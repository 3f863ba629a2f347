package io.github.delayqueue.faults;

import java.time.Duration;

/**
 * How big a run is: the load, the lease, and how often each fault is injected.
 *
 * @param mode {@code smoke} (tiny, for the build) or {@code full} (the published table)
 * @param rate messages scheduled per second
 * @param minDelayMillis the shortest delay
 * @param maxDelayMillis the longest delay
 * @param workers consumer JVMs
 * @param leaseMillis the visibility timeout of a delivery
 * @param consumerKills consumer JVMs killed in the crash loop
 * @param stalls consumer stalls
 * @param restartRounds rounds of a rolling restart (every worker once per round)
 * @param redisCrashes Redis crashes per fsync policy
 * @param connectionKilling how long connections are killed, per connection type
 * @param redisStalls Redis stalls per kind
 * @param redisStall how long each Redis stall lasts (longer than the command timeout)
 * @param skewedRun how long the skewed-clock workers consume
 * @param poisons poison messages of each kind
 * @param settle how long the load runs before a fault and after it
 */
record Sizes(String mode, int rate, long minDelayMillis, long maxDelayMillis, int workers, long leaseMillis,
		int consumerKills, int stalls, int restartRounds, int redisCrashes, Duration connectionKilling, int redisStalls,
		Duration redisStall, Duration skewedRun, int poisons, Duration settle) {

	/** The Redis command timeout of producer and workers. */
	static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/** Handler threads per worker. */
	static final int CONCURRENCY = 4;

	/** How long a handler works on a message. */
	static final long HANDLER_MILLIS = 10;

	/** Attempts before a message is dead-lettered. */
	static final int MAX_ATTEMPTS = 3;

	static Sizes of(String mode) {
		return switch (mode) {
			case "smoke" -> new Sizes(mode, 150, 500, 1_500, 2, 2_000, 1, 1, 1, 1, Duration.ofSeconds(2), 1,
					Duration.ofMillis(1_500), Duration.ofSeconds(3), 1, Duration.ofMillis(300));
			case "full" -> new Sizes(mode, 500, 1_000, 5_000, 3, 3_000, 100, 5, 2, 5, Duration.ofSeconds(20), 3,
					Duration.ofSeconds(3), Duration.ofSeconds(30), 5, Duration.ofSeconds(1));
			default -> throw new IllegalArgumentException("Unknown mode " + mode + ": smoke or full");
		};
	}

}
