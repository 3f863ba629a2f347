package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.springframework.util.Assert;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * An exponential backoff whose delays are spread at random by a jitter that grows with them, the same on Spring
 * Framework 6.2 (whose {@link ExponentialBackOff} has no jitter) and 7: each delay is Spring's exponential one, moved
 * by up to {@code jitter × delay / initial delay} either way, never below the initial delay nor above the longest.
 */
final class JitteredExponentialBackOff implements BackOff {

	private final long initialInterval;

	private final double multiplier;

	private final long maxInterval;

	private final long jitter;

	/**
	 * Creates a backoff.
	 * @param delay the delay before the second attempt, at least 1 ms
	 * @param multiplier the growth per attempt, at least 1
	 * @param maxDelay the longest delay, at least {@code delay}
	 * @param jitter the random spread at the first delay, zero or more
	 */
	JitteredExponentialBackOff(Duration delay, double multiplier, Duration maxDelay, Duration jitter) {
		Assert.isTrue(delay != null && delay.toMillis() >= 1, () -> "Backoff delay must be at least 1ms, but was " + delay);
		Assert.isTrue(multiplier >= 1, () -> "Backoff multiplier must be at least 1, but was " + multiplier);
		Assert.isTrue(maxDelay != null && maxDelay.compareTo(delay) >= 0,
				() -> "Max backoff delay must be at least the delay (" + delay + "), but was " + maxDelay);
		Assert.isTrue(jitter != null && !jitter.isNegative(), () -> "Backoff jitter must not be negative, but was " + jitter);
		this.initialInterval = delay.toMillis();
		this.multiplier = multiplier;
		this.maxInterval = maxDelay.toMillis();
		this.jitter = jitter.toMillis();
	}

	@Override
	public BackOffExecution start() {
		ExponentialBackOff exponential = new ExponentialBackOff(this.initialInterval, this.multiplier);
		exponential.setMaxInterval(this.maxInterval);
		BackOffExecution execution = exponential.start();
		return () -> {
			long interval = execution.nextBackOff();
			return (interval == BackOffExecution.STOP) ? interval : jittered(interval);
		};
	}

	private long jittered(long interval) {
		if (this.jitter == 0) {
			return interval;
		}
		long spread = this.jitter * (interval / this.initialInterval);
		long min = Math.max(interval - spread, this.initialInterval);
		long max = Math.min(interval + spread, this.maxInterval);
		return (max > min) ? ThreadLocalRandom.current().nextLong(min, max + 1) : min;
	}

	@Override
	public String toString() {
		return "JitteredExponentialBackOff[delay=" + this.initialInterval + "ms, multiplier=" + this.multiplier
				+ ", maxDelay=" + this.maxInterval + "ms, jitter=" + this.jitter + "ms]";
	}

}
