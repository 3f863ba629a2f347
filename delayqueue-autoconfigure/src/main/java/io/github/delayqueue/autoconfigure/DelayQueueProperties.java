package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for delayqueue ({@code delayqueue.*}). Each setter rejects a value that cannot
 * work, so a bad value fails start-up with a message that names the property.
 */
@ConfigurationProperties("delayqueue")
public class DelayQueueProperties {

	/**
	 * Whether to auto-configure delayqueue.
	 */
	private boolean enabled = true;

	/**
	 * Prefix of every Redis key and channel delayqueue uses.
	 */
	private String keyPrefix = "dq";

	/**
	 * Largest serialised payload accepted by schedule.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	private final Listener listener = new Listener();

	private final Scheduler scheduler = new Scheduler();

	private final DeadLetter deadLetter = new DeadLetter();

	private final Metrics metrics = new Metrics();

	private final Observation observation = new Observation();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		try {
			RedisMessageStore.validateKeyPrefix(keyPrefix);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("delayqueue.key-prefix: " + ex.getMessage(), ex);
		}
		this.keyPrefix = keyPrefix;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		Assert.isTrue(maxPayloadSize != null && maxPayloadSize.toBytes() > 0, "delayqueue.max-payload-size must be positive");
		this.maxPayloadSize = maxPayloadSize;
	}

	public Listener getListener() {
		return this.listener;
	}

	public Scheduler getScheduler() {
		return this.scheduler;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public Observation getObservation() {
		return this.observation;
	}

	/**
	 * Micrometer metrics, recorded when a MeterRegistry bean exists.
	 */
	public static class Metrics {

		/**
		 * Whether to record metrics.
		 */
		private boolean enabled = true;

		/**
		 * How often the per-topic gauges are read from Redis in the background.
		 */
		private Duration refreshInterval = Duration.ofSeconds(10);

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public Duration getRefreshInterval() {
			return this.refreshInterval;
		}

		public void setRefreshInterval(Duration refreshInterval) {
			Assert.isTrue(refreshInterval != null && refreshInterval.toMillis() >= 100,
					"delayqueue.metrics.refresh-interval must be at least 100ms");
			this.refreshInterval = refreshInterval;
		}

	}

	/**
	 * Micrometer observations (and so tracing across the delay), made when an ObservationRegistry bean exists.
	 */
	public static class Observation {

		/**
		 * Whether to observe schedule calls and handler calls.
		 */
		private boolean enabled = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	/**
	 * Defaults for every listener; {@code @DelayedListener} attributes override them per listener.
	 */
	public static class Listener {

		/**
		 * Whether listeners start with the application context, unless a listener says otherwise (the scheduler
		 * has its own setting).
		 */
		private boolean autoStartup = true;

		/**
		 * Most messages claimed per round trip. A consumer claims only for its free handler threads, so this
		 * limits claims only where it is below the concurrency.
		 */
		private @Nullable Integer batchSize;

		/**
		 * Handlers running at once per topic.
		 */
		private int concurrency = 4;

		/**
		 * Lease of a claimed message; a consumer that stops extending it loses the message to another after
		 * this long.
		 */
		private Duration visibilityTimeout = Duration.ofSeconds(30);

		/**
		 * Attempts before a failing message goes to the dead letters.
		 */
		private int maxAttempts = 10;

		/**
		 * Time running handlers get to finish on shutdown before their messages are handed back.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(10);

		private final Backoff backoff = new Backoff();

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public int getConcurrency() {
			return this.concurrency;
		}

		public @Nullable Integer getBatchSize() {
			return this.batchSize;
		}

		public void setBatchSize(@Nullable Integer batchSize) {
			Assert.isTrue(batchSize == null || (batchSize >= 1 && batchSize <= 1000),
					"delayqueue.listener.batch-size must be between 1 and 1000");
			this.batchSize = batchSize;
		}

		public void setConcurrency(int concurrency) {
			Assert.isTrue(concurrency >= 1 && concurrency <= 1000, "delayqueue.listener.concurrency must be between 1 and 1000");
			this.concurrency = concurrency;
		}

		public Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(Duration visibilityTimeout) {
			Assert.isTrue(visibilityTimeout != null && visibilityTimeout.toMillis() >= 100, "delayqueue.listener.visibility-timeout must be at least 100ms");
			this.visibilityTimeout = visibilityTimeout;
		}

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			Assert.isTrue(maxAttempts >= 1, "delayqueue.listener.max-attempts must be at least 1");
			this.maxAttempts = maxAttempts;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			Assert.isTrue(shutdownTimeout != null && !shutdownTimeout.isNegative(), "delayqueue.listener.shutdown-timeout must not be negative");
			this.shutdownTimeout = shutdownTimeout;
		}

		public Backoff getBackoff() {
			return this.backoff;
		}

	}

	/**
	 * Delays between the attempts of a failing message: exponential, with jitter.
	 */
	public static class Backoff {

		/**
		 * Delay before the second attempt; each later delay is the previous one times the multiplier.
		 */
		private Duration delay = Duration.ofSeconds(1);

		private boolean delaySet;

		private boolean maxDelaySet;

		/**
		 * Factor by which the delay grows per attempt.
		 */
		private double multiplier = 2.0;

		/**
		 * Longest delay between attempts.
		 */
		private Duration maxDelay = Duration.ofMinutes(5);

		/**
		 * Random spread of each delay (growing with the delay as it grows), so that messages that failed together
		 * are not all retried at the same moment; never below the first delay nor above the longest. Default a
		 * quarter of the delay.
		 */
		private @Nullable Duration jitter;

		public Duration getDelay() {
			return this.delay;
		}

		public void setDelay(Duration delay) {
			Assert.isTrue(delay != null && delay.toMillis() >= 1, "delayqueue.listener.backoff.delay must be at least 1ms");
			this.delay = delay;
			this.delaySet = true;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			Assert.isTrue(multiplier >= 1, "delayqueue.listener.backoff.multiplier must be at least 1");
			this.multiplier = multiplier;
		}

		public Duration getMaxDelay() {
			return this.maxDelay;
		}

		public void setMaxDelay(Duration maxDelay) {
			Assert.isTrue(maxDelay != null && maxDelay.toMillis() >= 1,
					"delayqueue.listener.backoff.max-delay must be at least 1ms");
			this.maxDelay = maxDelay;
			this.maxDelaySet = true;
		}

		/**
		 * The delay before the second attempt in effect: {@code delay}, else 0.1's {@code initial}, else 1s.
		 * @return the delay
		 */
		@SuppressWarnings("deprecation")
		public Duration effectiveDelay() {
			Duration legacy = getInitial();
			return (this.delaySet || legacy == null) ? this.delay : legacy;
		}

		/**
		 * The longest delay in effect: {@code max-delay}, else 0.1's {@code max}, else 5m.
		 * @return the delay
		 */
		@SuppressWarnings("deprecation")
		public Duration effectiveMaxDelay() {
			Duration legacy = getMax();
			return (this.maxDelaySet || legacy == null) ? this.maxDelay : legacy;
		}

		public @Nullable Duration getJitter() {
			return this.jitter;
		}

		public void setJitter(@Nullable Duration jitter) {
			Assert.isTrue(jitter == null || !jitter.isNegative(), "delayqueue.listener.backoff.jitter must not be negative");
			this.jitter = jitter;
		}

		/**
		 * Delay before the second attempt (0.1's name; "delay" wins when both are set).
		 */
		private @Nullable Duration initial;

		/**
		 * Longest delay between attempts (0.1's name; "max-delay" wins when both are set).
		 */
		private @Nullable Duration max;

		/**
		 * The delay before the second attempt, set under 0.1's name.
		 * @return the delay, or {@code null}
		 * @deprecated since 0.2 in favour of {@code delayqueue.listener.backoff.delay}, the name Spring Boot uses
		 */
		@Deprecated(since = "0.2")
		@DeprecatedConfigurationProperty(replacement = "delayqueue.listener.backoff.delay", since = "0.2")
		public @Nullable Duration getInitial() {
			return this.initial;
		}

		/**
		 * Sets the delay before the second attempt under 0.1's name.
		 * @param initial the delay
		 * @deprecated since 0.2 in favour of {@code delayqueue.listener.backoff.delay}
		 */
		@Deprecated(since = "0.2")
		public void setInitial(@Nullable Duration initial) {
			Assert.isTrue(initial == null || initial.toMillis() >= 1,
					"delayqueue.listener.backoff.initial must be at least 1ms");
			this.initial = initial;
		}

		/**
		 * The longest delay between attempts, set under 0.1's name.
		 * @return the delay, or {@code null}
		 * @deprecated since 0.2 in favour of {@code delayqueue.listener.backoff.max-delay}, the name Spring Boot uses
		 */
		@Deprecated(since = "0.2")
		@DeprecatedConfigurationProperty(replacement = "delayqueue.listener.backoff.max-delay", since = "0.2")
		public @Nullable Duration getMax() {
			return this.max;
		}

		/**
		 * Sets the longest delay between attempts under 0.1's name.
		 * @param max the delay
		 * @deprecated since 0.2 in favour of {@code delayqueue.listener.backoff.max-delay}
		 */
		@Deprecated(since = "0.2")
		public void setMax(@Nullable Duration max) {
			Assert.isTrue(max == null || max.toMillis() >= 1, "delayqueue.listener.backoff.max must be at least 1ms");
			this.max = max;
		}

	}

	/**
	 * How due messages are found and claimed.
	 */
	public static class Scheduler {

		/**
		 * Tick of the wheel timer that wakes consumers near due times; the last tick or two are timed precisely.
		 */
		private Duration tick = Duration.ofMillis(10);

		/**
		 * Interval of the fallback poll that covers lost wake-ups and expired leases.
		 */
		private Duration pollInterval = Duration.ofSeconds(1);

		/**
		 * Whether the wake-up scheduler starts with the application context.
		 */
		private boolean autoStartup = true;

		/**
		 * Most messages claimed per round trip (0.1's name; "delayqueue.listener.batch-size" wins when both are set).
		 */
		private @Nullable Integer batchSize;

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public Duration getTick() {
			return this.tick;
		}

		public void setTick(Duration tick) {
			Assert.isTrue(tick != null && tick.toMillis() >= 1, "delayqueue.scheduler.tick must be at least 1ms");
			this.tick = tick;
		}

		public Duration getPollInterval() {
			return this.pollInterval;
		}

		public void setPollInterval(Duration pollInterval) {
			Assert.isTrue(pollInterval != null && pollInterval.toMillis() >= 1, "delayqueue.scheduler.poll-interval must be at least 1ms");
			this.pollInterval = pollInterval;
		}

		/**
		 * Most messages claimed per round trip.
		 * @return the batch size, or {@code null} if not set here
		 * @deprecated since 0.2 in favour of {@code delayqueue.listener.batch-size}: it is a listener setting
		 */
		@Deprecated(since = "0.2")
		@DeprecatedConfigurationProperty(replacement = "delayqueue.listener.batch-size", since = "0.2")
		public @Nullable Integer getBatchSize() {
			return this.batchSize;
		}

		/**
		 * Sets the most messages claimed per round trip.
		 * @param batchSize 1 to 1000
		 * @deprecated since 0.2 in favour of {@code delayqueue.listener.batch-size}
		 */
		@Deprecated(since = "0.2")
		public void setBatchSize(@Nullable Integer batchSize) {
			Assert.isTrue(batchSize == null || (batchSize >= 1 && batchSize <= 1000),
					"delayqueue.scheduler.batch-size must be between 1 and 1000");
			this.batchSize = batchSize;
		}

	}

	/**
	 * Bounds of each topic's dead letters; the oldest beyond either bound are deleted as new ones arrive.
	 */
	public static class DeadLetter {

		/**
		 * Most dead letters kept per topic.
		 */
		private long maxCount = 10_000;

		/**
		 * How long a dead letter is kept.
		 */
		private Duration maxAge = Duration.ofDays(14);

		public long getMaxCount() {
			return this.maxCount;
		}

		public void setMaxCount(long maxCount) {
			Assert.isTrue(maxCount >= 1, "delayqueue.dead-letter.max-count must be at least 1");
			this.maxCount = maxCount;
		}

		public Duration getMaxAge() {
			return this.maxAge;
		}

		public void setMaxAge(Duration maxAge) {
			Assert.isTrue(maxAge != null && maxAge.toMillis() >= 1, "delayqueue.dead-letter.max-age must be positive");
			this.maxAge = maxAge;
		}

	}

}
