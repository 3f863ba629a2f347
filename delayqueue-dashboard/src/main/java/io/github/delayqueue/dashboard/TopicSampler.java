package io.github.delayqueue.dashboard;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.recurring.RecurringScheduleInfo;
import io.github.delayqueue.recurring.RecurringSchedules;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Samples every known topic in the background at a fixed interval and keeps the latest samples of each in a
 * {@link TopicHistory}, so that a page view reads memory, never Redis. A sampling costs a few commands per
 * partition of each topic (counts, controls, partition count) and one for the recurring schedules; at most
 * {@code maxTopics} topics are sampled (by name), the others are only counted.
 *
 * @since 1.0.0
 */
public class TopicSampler implements SmartLifecycle {

	private static final Logger logger = LoggerFactory.getLogger(TopicSampler.class);

	private final DelayedQueueAdmin admin;

	private final TopicMeterReader meters;

	private final @Nullable RecurringSchedules recurring;

	private final Duration interval;

	private final int historySize;

	private final int maxTopics;

	private final Map<String, TopicHistory> histories = new ConcurrentHashMap<>();

	private Clock clock = Clock.systemUTC();

	private volatile List<RecurringScheduleInfo> schedules = List.of();

	private volatile int unsampledTopics;

	private volatile @Nullable Instant sampledAt;

	private volatile @Nullable String failure;

	private volatile @Nullable ScheduledExecutorService executor;

	/**
	 * Creates a sampler.
	 * @param admin where topics are read
	 * @param meters reads this instance's meters of a topic ({@link TopicMeterReader#NONE} for none)
	 * @param recurring the recurring schedules to list, or {@code null}
	 * @param interval how often every topic is sampled (at least 100 ms)
	 * @param historySize how many samples are kept per topic (at least 2)
	 * @param maxTopics how many topics are sampled at most (at least 1)
	 */
	public TopicSampler(DelayedQueueAdmin admin, TopicMeterReader meters, @Nullable RecurringSchedules recurring,
			Duration interval, int historySize, int maxTopics) {
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		Assert.notNull(meters, "TopicMeterReader must not be null");
		Assert.isTrue(interval != null && interval.toMillis() >= 100,
				() -> "Sample interval must be at least 100ms, but was " + interval);
		Assert.isTrue(historySize >= 2, () -> "History size must be at least 2, but was " + historySize);
		Assert.isTrue(maxTopics >= 1, () -> "Max topics must be at least 1, but was " + maxTopics);
		this.admin = admin;
		this.meters = meters;
		this.recurring = recurring;
		this.interval = interval;
		this.historySize = historySize;
		this.maxTopics = maxTopics;
	}

	/**
	 * Sets the clock samples are stamped with (for tests).
	 * @param clock the clock
	 */
	public void setClock(Clock clock) {
		this.clock = clock;
	}

	/**
	 * Samples every known topic (up to the maximum) and the recurring schedules now.
	 */
	public void sampleAll() {
		Set<String> known = this.admin.knownTopics();
		List<String> topics = known.stream().sorted().limit(this.maxTopics).toList();
		this.histories.keySet().retainAll(topics);
		for (String topic : topics) {
			sample(topic);
		}
		this.unsampledTopics = known.size() - topics.size();
		RecurringSchedules schedules = this.recurring;
		this.schedules = (schedules != null) ? schedules.list() : List.of();
		this.sampledAt = this.clock.instant();
		this.failure = null;
	}

	/**
	 * Samples one topic now (after a change made from the dashboard, so that the page shows it at once). A topic
	 * beyond the maximum is not kept.
	 * @param topic the topic
	 */
	public void sample(String topic) {
		TopicStats stats = this.admin.stats(topic);
		TopicControlState controls = this.admin.controls(topic);
		int partitions = this.admin.partitions(topic);
		TopicSample sample = new TopicSample(this.clock.instant(), stats, controls, partitions,
				this.meters.read(topic));
		TopicHistory history = this.histories.get(topic);
		if (history == null) {
			if (this.histories.size() >= this.maxTopics) {
				return;
			}
			history = this.histories.computeIfAbsent(topic, (name) -> new TopicHistory(this.historySize));
		}
		history.add(sample);
	}

	/**
	 * The samples of every sampled topic, by topic name.
	 * @return each topic's samples, oldest first
	 */
	public Map<String, List<TopicSample>> histories() {
		Map<String, List<TopicSample>> copy = new TreeMap<>();
		this.histories.forEach((topic, history) -> {
			List<TopicSample> samples = history.samples();
			if (!samples.isEmpty()) {
				copy.put(topic, samples);
			}
		});
		return copy;
	}

	/**
	 * The recurring schedules as last sampled.
	 * @return the schedules, by name
	 */
	public List<RecurringScheduleInfo> schedules() {
		return this.schedules;
	}

	/**
	 * How many known topics were left out at the last sampling (beyond the maximum).
	 * @return the count
	 */
	public int unsampledTopics() {
		return this.unsampledTopics;
	}

	/**
	 * When every topic was last sampled successfully.
	 * @return the time, or {@code null} if never
	 */
	public @Nullable Instant sampledAt() {
		return this.sampledAt;
	}

	/**
	 * Why the last sampling failed, if it did.
	 * @return the failure, or {@code null} if the last sampling succeeded
	 */
	public @Nullable String failure() {
		return this.failure;
	}

	/**
	 * How often every topic is sampled.
	 * @return the interval
	 */
	public Duration interval() {
		return this.interval;
	}

	@Override
	public synchronized void start() {
		if (this.executor != null) {
			return;
		}
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "delayqueue-dashboard");
			thread.setDaemon(true);
			return thread;
		});
		this.executor.scheduleWithFixedDelay(this::safeSampleAll, 0, this.interval.toMillis(), TimeUnit.MILLISECONDS);
	}

	private void safeSampleAll() {
		try {
			sampleAll();
		}
		catch (RuntimeException ex) {
			if (this.executor == null) {
				// stopping: the sampling was interrupted, nothing failed
				return;
			}
			if (this.failure == null) {
				logger.warn("Could not sample delayqueue topics for the dashboard: {}", ex.toString());
			}
			this.failure = ex.toString();
		}
	}

	@Override
	public synchronized void stop() {
		ScheduledExecutorService running = this.executor;
		if (running != null) {
			this.executor = null;
			running.shutdownNow();
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

}
