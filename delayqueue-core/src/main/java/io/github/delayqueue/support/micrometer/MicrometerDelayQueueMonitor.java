package io.github.delayqueue.support.micrometer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.support.DelayQueueMonitor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.jspecify.annotations.Nullable;

/**
 * Records delayqueue's work as Micrometer meters, each tagged with its {@code topic}:
 * <ul>
 * <li>counters {@code delayqueue.messages.scheduled}, {@code .cancelled}, {@code .delivered} (handled
 * successfully), {@code .retried}, {@code .recovered} (failed, dealt with by the listener's error handler) and
 * {@code .dead} (the last three with an {@code exception} tag);</li>
 * <li>timer {@code delayqueue.handle}: handler duration, with an {@code outcome} tag ({@code success},
 * {@code retry}, {@code recovered}, {@code dead}), unless handler time is recorded elsewhere (a
 * {@code delayqueue.listener} observation timed by a meter observation handler): it is recorded once;</li>
 * <li>timer {@code delayqueue.lateness}: handler start minus due time on the Redis clock, with a percentile
 * histogram.</li>
 * </ul>
 */
public class MicrometerDelayQueueMonitor implements DelayQueueMonitor {

	private final MeterRegistry registry;

	private final boolean handlerTime;

	private final Map<String, TopicMeters> meters = new ConcurrentHashMap<>();

	/**
	 * Creates a monitor that records handler time.
	 * @param registry where meters are registered
	 */
	public MicrometerDelayQueueMonitor(MeterRegistry registry) {
		this(registry, true);
	}

	/**
	 * Creates a monitor.
	 * @param registry where meters are registered
	 * @param handlerTime whether to record the {@code delayqueue.handle} timer; {@code false} where the handler
	 * observation is timed already, so that handler time is recorded once
	 */
	public MicrometerDelayQueueMonitor(MeterRegistry registry, boolean handlerTime) {
		this.registry = registry;
		this.handlerTime = handlerTime;
	}

	@Override
	public void scheduled(String topic, int count) {
		meters(topic).scheduled.increment(count);
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
		TopicMeters topicMeters = meters(topic);
		switch (outcome) {
			case SUCCESS -> {
				topicMeters.handledSuccess.record(durationNanos, TimeUnit.NANOSECONDS);
				topicMeters.delivered.increment();
			}
			case RETRY -> {
				topicMeters.handledRetry.record(durationNanos, TimeUnit.NANOSECONDS);
				failureCounter("delayqueue.messages.retried", "Messages whose handler failed and that wait for a retry",
						topic, tagOf(exception)).increment();
			}
			case RECOVERED -> {
				topicMeters.handledRecovered.record(durationNanos, TimeUnit.NANOSECONDS);
				failureCounter("delayqueue.messages.recovered",
						"Messages whose handler failed and whose error handler dealt with them (acknowledged)", topic,
						tagOf(exception))
					.increment();
			}
			case DEAD -> {
				topicMeters.handledDead.record(durationNanos, TimeUnit.NANOSECONDS);
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
		return this.meters.computeIfAbsent(topic, (name) -> new TopicMeters(this.registry, name, this.handlerTime));
	}

	private static final class TopicMeters {

		/** Where meters that are not to be recorded go: nowhere (no meter is kept or published). */
		private static final MeterRegistry NOT_RECORDED = new CompositeMeterRegistry();

		final Counter scheduled;

		final Counter cancelled;

		final Counter delivered;

		final Timer lateness;

		final Timer handledSuccess;

		final Timer handledRetry;

		final Timer handledRecovered;

		final Timer handledDead;

		TopicMeters(MeterRegistry registry, String topic, boolean handlerTime) {
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
			this.handledSuccess = handleTimer(registry, topic, "success", handlerTime);
			this.handledRetry = handleTimer(registry, topic, "retry", handlerTime);
			this.handledRecovered = handleTimer(registry, topic, "recovered", handlerTime);
			this.handledDead = handleTimer(registry, topic, "dead", handlerTime);
		}

		private static Counter counter(MeterRegistry registry, String name, String description, String topic) {
			return Counter.builder(name)
				.description(description)
				.baseUnit(BaseUnits.MESSAGES)
				.tag("topic", topic)
				.register(registry);
		}

		/** The handler timer of an outcome; a timer that records nothing if handler time is recorded elsewhere. */
		private static Timer handleTimer(MeterRegistry registry, String topic, String outcome, boolean handlerTime) {
			Timer.Builder builder = Timer.builder("delayqueue.handle")
				.description("Time handlers take")
				.tag("topic", topic)
				.tag("outcome", outcome);
			return handlerTime ? builder.register(registry) : builder.register(NOT_RECORDED);
		}

	}

}
