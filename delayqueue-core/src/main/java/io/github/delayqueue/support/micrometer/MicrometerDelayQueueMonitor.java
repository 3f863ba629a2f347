package io.github.delayqueue.support.micrometer;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.support.DelayQueueMonitor;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

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
 * Group tags are off by default (a tag per group is a series per group). Named groups per topic (see
 * {@link #MicrometerDelayQueueMonitor(MeterRegistry, boolean, Map)}) turn them on: then the delivered, retried,
 * recovered and dead counters and the lateness timer of <em>every</em> topic carry a {@code group} tag, the group's key
 * for a named group of the topic and {@value #OTHER_GROUPS} for any other message (another group, no group, a topic
 * without named groups), so that every meter of a name has the same tag keys (Prometheus requires it) and the
 * series of a topic add up to its total.
 *
 * @since 0.1.0
 */
public class MicrometerDelayQueueMonitor implements DelayQueueMonitor {

	private final MeterRegistry registry;

	private final boolean observationsTimed;

	/** The {@code group} tag of the messages of groups not named. */
	public static final String OTHER_GROUPS = "other";

	private final Map<String, TopicMeters> meters = new ConcurrentHashMap<>();

	/** The groups named per topic, whose messages' meters carry their key; empty: no group tag at all. */
	private final Map<String, Set<String>> taggedGroups;

	/** Delivered counter and lateness timer by topic, then by group tag (only with group tags). */
	private final Map<String, Map<String, DeliveryMeters>> groupMeters = new ConcurrentHashMap<>();

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
		this(registry, observationsTimed, Map.of());
	}

	/**
	 * Creates a monitor whose delivery meters carry a {@code group} tag for the groups named.
	 * @param registry where meters are registered
	 * @param observationsTimed whether observations are timed (see
	 * {@link #MicrometerDelayQueueMonitor(MeterRegistry, boolean)})
	 * @param taggedGroups the group keys whose messages are counted under their own {@code group} tag, by topic; empty
	 * for no group tag at all (every other message is tagged {@value #OTHER_GROUPS} once any group is named)
	 * @since 1.0.0
	 */
	public MicrometerDelayQueueMonitor(MeterRegistry registry, boolean observationsTimed,
			Map<String, ? extends Collection<String>> taggedGroups) {
		this.registry = registry;
		this.observationsTimed = observationsTimed;
		Map<String, Set<String>> groups = new HashMap<>();
		taggedGroups.forEach((topic, names) -> {
			if (!names.isEmpty()) {
				groups.put(topic, Set.copyOf(names));
			}
		});
		this.taggedGroups = Map.copyOf(groups);
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
		dispatched(topic, null, latenessMillis);
	}

	@Override
	public void dispatched(String topic, @Nullable String group, long latenessMillis) {
		deliveryMeters(topic, group).lateness.record(Math.max(0, latenessMillis), TimeUnit.MILLISECONDS);
	}

	@Override
	public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception) {
		handled(topic, outcome, durationNanos, exception, false);
	}

	@Override
	public void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception,
			boolean observed) {
		handled(topic, null, outcome, durationNanos, exception, observed);
	}

	@Override
	public void handled(String topic, @Nullable String group, Outcome outcome, long durationNanos,
			@Nullable Throwable exception, boolean observed) {
		TopicMeters topicMeters = meters(topic);
		if (!(observed && this.observationsTimed)) {
			topicMeters.handleTimer(outcome).record(durationNanos, TimeUnit.NANOSECONDS);
		}
		switch (outcome) {
			case SUCCESS -> deliveryMeters(topic, group).delivered.increment();
			case RETRY -> {
				failureCounter("delayqueue.messages.retried", "Messages whose handler failed and that wait for a retry",
						topic, tagOf(exception), groupTag(topic, group)).increment();
			}
			case RECOVERED -> {
				failureCounter("delayqueue.messages.recovered",
						"Messages whose handler failed and whose error handler dealt with them (acknowledged)", topic,
						tagOf(exception), groupTag(topic, group))
					.increment();
			}
			case DEAD -> {
				failureCounter("delayqueue.messages.dead", "Messages moved to the dead letters", topic, tagOf(exception),
						groupTag(topic, group))
					.increment();
			}
		}
	}

	/** The group tag of a message: {@code null} without group tags, else its key if named, else "other". */
	private @Nullable String groupTag(String topic, @Nullable String group) {
		if (this.taggedGroups.isEmpty()) {
			return null;
		}
		Set<String> named = this.taggedGroups.get(topic);
		return (group != null && named != null && named.contains(group)) ? group : OTHER_GROUPS;
	}

	private DeliveryMeters deliveryMeters(String topic, @Nullable String group) {
		String tag = groupTag(topic, group);
		if (tag == null) {
			DeliveryMeters delivery = meters(topic).delivery;
			Assert.state(delivery != null, "Delivery meters without a group tag exist without group tags only");
			return delivery;
		}
		Map<String, DeliveryMeters> byGroup = this.groupMeters.get(topic);
		if (byGroup == null) {
			byGroup = this.groupMeters.computeIfAbsent(topic, (name) -> new ConcurrentHashMap<>());
		}
		DeliveryMeters found = byGroup.get(tag);
		return (found != null) ? found
				: byGroup.computeIfAbsent(tag, (key) -> new DeliveryMeters(this.registry, topic, key));
	}

	@Override
	public void expired(String topic, int count) {
		failureCounter("delayqueue.messages.dead", "Messages moved to the dead letters", topic, "LeaseExpired",
				groupTag(topic, null))
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

	private Counter failureCounter(String name, String description, String topic, String exception,
			@Nullable String group) {
		Counter.Builder builder = Counter.builder(name)
			.description(description)
			.baseUnit(BaseUnits.MESSAGES)
			.tag("topic", topic)
			.tag("exception", exception);
		return ((group != null) ? builder.tag("group", group) : builder).register(this.registry);
	}

	private static String tagOf(@Nullable Throwable exception) {
		return (exception != null) ? exception.getClass().getSimpleName() : "none";
	}

	private TopicMeters meters(String topic) {
		return this.meters.computeIfAbsent(topic, (name) -> new TopicMeters(this.registry, name, !this.taggedGroups.isEmpty()));
	}

	private static final class TopicMeters {


		final Counter scheduled;

		final Counter cancelled;

		/** The delivered counter and the lateness timer without a group tag; {@code null} with group tags. */
		final @Nullable DeliveryMeters delivery;

		private final MeterRegistry registry;

		private final String topic;

		/** The handler timers by outcome, registered when first recorded. */
		private final Map<Outcome, Timer> handleTimers = new ConcurrentHashMap<>();

		TopicMeters(MeterRegistry registry, String topic, boolean groupTags) {
			this.registry = registry;
			this.topic = topic;
			this.scheduled = counter(registry, "delayqueue.messages.scheduled", "Messages stored by schedule calls",
					topic);
			this.cancelled = counter(registry, "delayqueue.messages.cancelled", "Waiting messages cancelled", topic);
			this.delivery = groupTags ? null : new DeliveryMeters(registry, topic, null);
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

	/** A topic's delivered counter and lateness timer, with a group tag or without. */
	private static final class DeliveryMeters {

		final Counter delivered;

		final Timer lateness;

		DeliveryMeters(MeterRegistry registry, String topic, @Nullable String group) {
			Counter.Builder delivered = Counter.builder("delayqueue.messages.delivered")
				.description("Messages whose handler returned normally (acknowledged)")
				.baseUnit(BaseUnits.MESSAGES)
				.tag("topic", topic);
			Timer.Builder lateness = Timer.builder("delayqueue.lateness")
				.description("Handler start minus due time, on the Redis clock")
				.tag("topic", topic)
				.publishPercentileHistogram()
				.minimumExpectedValue(Duration.ofMillis(1))
				.maximumExpectedValue(Duration.ofMinutes(10));
			if (group != null) {
				delivered.tag("group", group);
				lateness.tag("group", group);
			}
			this.delivered = delivered.register(registry);
			this.lateness = lateness.register(registry);
		}

	}

}
