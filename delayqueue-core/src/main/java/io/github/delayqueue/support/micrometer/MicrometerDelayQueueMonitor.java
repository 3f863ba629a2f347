package io.github.delayqueue.support.micrometer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.support.DelayQueueMonitor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.jspecify.annotations.Nullable;

/**
 * Records delayqueue's work as Micrometer meters, each tagged with its {@code topic}:
 * <ul>
 * <li>counters {@code delayqueue.messages.scheduled}, {@code .cancelled}, {@code .delivered} (handled
 * successfully), {@code .retried}, {@code .recovered} (failed, dealt with by the listener's error handler) and
 * {@code .dead} (the last three with an {@code exception} tag);</li>
 * <li>timer {@code delayqueue.handle}: handler duration, with an {@code outcome} tag ({@code success},
 * {@code retry}, {@code recovered}, {@code dead}), for handler calls that did not run in an observation, or all
 * of them unless observations are timed (by a meter observation handler): handler time is recorded once;</li>
 * <li>timer {@code delayqueue.lateness}: handler start minus due time on the Redis clock, with a percentile
 * histogram;</li>
 * <li>counter {@code delayqueue.transaction.failed} (tag {@code operation}): messages whose write, held for a
 * transaction, failed after the commit.</li>
 * </ul>
 *
 * @since 0.1.0
 */
public class MicrometerDelayQueueMonitor implements DelayQueueMonitor {

	private final MeterRegistry registry;

	private final boolean observationsTimed;

	private final Map<String, TopicMeters> meters = new ConcurrentHashMap<>();

	/**
	 * Creates a monitor that records the time of every handler call.
	 * @param registry where meters are registered
	 */
	public MicrometerDelayQueueMonitor(MeterRegistry registry) {
		this(registry, false);
	}

	/**
	 * Creates a monitor.
	 * @param registry where meters are registered
	 * @param observationsTimed whether observations are timed (a meter observation handler is registered): the
	 * {@code delayqueue.handle} timer then records only handler calls that ran without an observation, so that
	 * handler time is recorded once
	 */
	public MicrometerDelayQueueMonitor(MeterRegistry registry, boolean observationsTimed) {
		this.registry = registry;
		this.observationsTimed = observationsTimed;
	}

	@Override
	public void scheduled(String topic, int count) {
		meters(topic).scheduled.increment(count);
	}

	@Override
	public void afterCommitFailed(String topic, String operation, int count) {
		Counter.builder("delayqueue.transaction.failed")
			.description("Messages whose write, held for a transaction, failed after the commit")
			.tag("topic", topic)
			.tag("operation", operation)
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void cancelled(String topic) {
		meters(topic).cancelled.increment();
	}

	@Override
	public void dispatched(String topic, long latenessMillis) {
		meters(topic).lateness.record(Math.max(0, latenessMillis), TimeUnit.MILLISECONDS);
	}

	@Override
	public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception) {
		handled(topic, outcome, durationNanos, exception, false);
	}

	@Override
	public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception,
			boolean observed) {
		TopicMeters topicMeters = meters(topic);
		if (!(observed && this.observationsTimed)) {
			topicMeters.handleTimer(outcome).record(durationNanos, TimeUnit.NANOSECONDS);
		}
		switch (outcome) {
			case SUCCESS -> topicMeters.delivered.increment();
			case RETRY -> {
				failureCounter("delayqueue.messages.retried", "Messages whose handler failed and that wait for a retry",
						topic, tagOf(exception)).increment();
			}
			case RECOVERED -> {
				failureCounter("delayqueue.messages.recovered",
						"Messages whose handler failed and whose error handler dealt with them (acknowledged)", topic,
						tagOf(exception))
					.increment();
			}
			case DEAD -> {
				failureCounter("delayqueue.messages.dead", "Messages moved to the dead letters", topic, tagOf(exception))
					.increment();
			}
		}
	}

	@Override
	public void expired(String topic, int count) {
		failureCounter("delayqueue.messages.dead", "Messages moved to the dead letters", topic, "LeaseExpired")
			.increment(count);
	}

	@Override
	public void pastDeadline(String topic, int count) {
		Counter.builder("delayqueue.messages.expired")
			.description("Messages not delivered because their expiry deadline had passed (dead-lettered or dropped)")
			.baseUnit(BaseUnits.MESSAGES)
			.tag("topic", topic)
			.register(this.registry)
			.increment(count);
	}

	@Override
	public void handlerTimedOut(String topic) {
		Counter.builder("delayqueue.handler.timeouts")
			.description("Handlers that ran beyond the handler timeout: interrupted, their message attempted again")
			.tag("topic", topic)
			.register(this.registry)
			.increment();
	}

	private Counter failureCounter(String name, String description, String topic, String exception) {
		return Counter.builder(name)
			.description(description)
			.baseUnit(BaseUnits.MESSAGES)
			.tag("topic", topic)
			.tag("exception", exception)
			.register(this.registry);
	}

	private static String tagOf(@Nullable Throwable exception) {
		return (exception != null) ? exception.getClass().getSimpleName() : "none";
	}

	private TopicMeters meters(String topic) {
		return this.meters.computeIfAbsent(topic, (name) -> new TopicMeters(this.registry, name));
	}

	private static final class TopicMeters {


		final Counter scheduled;

		final Counter cancelled;

		final Counter delivered;

		final Timer lateness;

		private final MeterRegistry registry;

		private final String topic;

		/** The handler timers by outcome, registered when first recorded. */
		private final Map<Outcome, Timer> handleTimers = new ConcurrentHashMap<>();

		TopicMeters(MeterRegistry registry, String topic) {
			this.registry = registry;
			this.topic = topic;
			this.scheduled = counter(registry, "delayqueue.messages.scheduled", "Messages stored by schedule calls",
					topic);
			this.cancelled = counter(registry, "delayqueue.messages.cancelled", "Waiting messages cancelled", topic);
			this.delivered = counter(registry, "delayqueue.messages.delivered",
					"Messages whose handler returned normally (acknowledged)", topic);
			this.lateness = Timer.builder("delayqueue.lateness")
				.description("Handler start minus due time, on the Redis clock")
				.tag("topic", topic)
				.publishPercentileHistogram()
				.minimumExpectedValue(Duration.ofMillis(1))
				.maximumExpectedValue(Duration.ofMinutes(10))
				.register(registry);
		}

		private static Counter counter(MeterRegistry registry, String name, String description, String topic) {
			return Counter.builder(name)
				.description(description)
				.baseUnit(BaseUnits.MESSAGES)
				.tag("topic", topic)
				.register(registry);
		}

		Timer handleTimer(Outcome outcome) {
			Timer timer = this.handleTimers.get(outcome);
			return (timer != null) ? timer : this.handleTimers.computeIfAbsent(outcome, (key) -> Timer.builder("delayqueue.handle")
				.description("Time handlers take")
				.tag("topic", this.topic)
				.tag("outcome", key.name().toLowerCase(java.util.Locale.ROOT))
				.register(this.registry));
		}

	}

}
