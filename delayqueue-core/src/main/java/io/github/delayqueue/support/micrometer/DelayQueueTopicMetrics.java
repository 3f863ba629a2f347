package io.github.delayqueue.support.micrometer;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicStats;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Gauges of every known topic's messages by state: {@code delayqueue.messages.waiting}, {@code .ready},
 * {@code .inflight} and {@code .dead}, tagged with the {@code topic}. A background thread refreshes them from
 * Redis at a fixed interval (one script per topic), so reading a gauge never waits for Redis. Known topics are the
 * ones any application has scheduled to or consumed from (a Redis set, see
 * {@link DelayedQueueAdmin#knownTopics()}); at most {@value #MAX_TOPICS} are tracked.
 *
 * @since 0.1.0
 */
public class DelayQueueTopicMetrics implements SmartLifecycle {

	/** The most topics that get gauges. */
	public static final int MAX_TOPICS = 500;

	private static final Logger logger = LoggerFactory.getLogger(DelayQueueTopicMetrics.class);

	private final DelayedQueueAdmin admin;

	private final MeterRegistry registry;

	private final Duration refreshInterval;

	private final Map<String, Counts> counts = new ConcurrentHashMap<>();

	private @Nullable ScheduledExecutorService executor;

	/**
	 * Creates the gauges' source.
	 * @param admin where the known topics and their counts are read
	 * @param registry where the gauges are registered
	 * @param refreshInterval how often the counts are read
	 */
	public DelayQueueTopicMetrics(DelayedQueueAdmin admin, MeterRegistry registry, Duration refreshInterval) {
		Assert.isTrue(refreshInterval != null && refreshInterval.toMillis() >= 100,
				() -> "Refresh interval must be at least 100ms, but was " + refreshInterval);
		this.admin = admin;
		this.registry = registry;
		this.refreshInterval = refreshInterval;
	}

	/**
	 * Reads the counts of every known topic now, registering gauges for topics seen for the first time.
	 */
	public void refresh() {
		Set<String> topics = this.admin.knownTopics();
		for (String topic : topics) {
			Counts topicCounts = this.counts.get(topic);
			if (topicCounts == null) {
				if (this.counts.size() >= MAX_TOPICS) {
					continue;
				}
				topicCounts = this.counts.computeIfAbsent(topic, this::register);
			}
			TopicStats stats = this.admin.stats(topic);
			topicCounts.waiting.set(stats.waiting());
			topicCounts.ready.set(stats.ready());
			topicCounts.inflight.set(stats.inflight());
			topicCounts.dead.set(stats.dead());
		}
	}

	private Counts register(String topic) {
		Counts topicCounts = new Counts();
		gauge("delayqueue.messages.waiting", "Messages due later", topic, topicCounts.waiting);
		gauge("delayqueue.messages.ready", "Messages due now, not yet claimed", topic, topicCounts.ready);
		gauge("delayqueue.messages.inflight", "Messages claimed whose handler has not finished", topic,
				topicCounts.inflight);
		gauge("delayqueue.messages.dead.current", "Dead letters kept", topic, topicCounts.dead);
		return topicCounts;
	}

	private void gauge(String name, String description, String topic, AtomicLong value) {
		Gauge.builder(name, value, AtomicLong::get)
			.description(description)
			.baseUnit(BaseUnits.MESSAGES)
			.tag("topic", topic)
			.strongReference(true)
			.register(this.registry);
	}

	@Override
	public synchronized void start() {
		if (this.executor != null) {
			return;
		}
		this.executor = Executors.newSingleThreadScheduledExecutor((runnable) -> {
			Thread thread = new Thread(runnable, "delayqueue-metrics");
			thread.setDaemon(true);
			return thread;
		});
		this.executor.scheduleWithFixedDelay(this::safeRefresh, 0, this.refreshInterval.toMillis(),
				TimeUnit.MILLISECONDS);
	}

	private void safeRefresh() {
		try {
			refresh();
		}
		catch (RuntimeException ex) {
			logger.debug("Could not refresh delayqueue gauges", ex);
		}
	}

	@Override
	public synchronized void stop() {
		if (this.executor != null) {
			this.executor.shutdownNow();
			this.executor = null;
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.executor != null;
	}

	private static final class Counts {

		final AtomicLong waiting = new AtomicLong();

		final AtomicLong ready = new AtomicLong();

		final AtomicLong inflight = new AtomicLong();

		final AtomicLong dead = new AtomicLong();

	}

}
