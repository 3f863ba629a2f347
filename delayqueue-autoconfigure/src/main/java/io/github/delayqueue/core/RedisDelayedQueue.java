package io.github.delayqueue.redis;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DefaultDelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueObservation;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * The {@link DelayedQueue} on Redis: every operation is one atomic script on the topic's keys, timed by the
 * Redis server's clock; {@link #scheduleAll(List)} writes up to a thousand messages of a topic per script call.
 */
public class RedisDelayedQueue implements DelayedQueue {

	/** The default limit on a serialised payload: 1 MB. */
	public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);

	private static final int MAX_DEAD_LETTER_PAGE = 1000;

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final long maxPayloadBytes;

	private final Clock clock;

	private final Set<String> registeredTopics = ConcurrentHashMap.newKeySet();

	private DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable DelayQueueScheduleObservationConvention observationConvention;

	/**
	 * Creates a queue with the default payload size limit.
	 * @param store the Redis store
	 * @param converter the payload converter
	 */
	public RedisDelayedQueue(RedisMessageStore store, PayloadConverter converter) {
		this(store, converter, DEFAULT_MAX_PAYLOAD_SIZE);
	}

	/**
	 * Creates a queue.
	 * @param store the Redis store
	 * @param converter the payload converter
	 * @param maxPayloadSize the largest serialised payload accepted
	 */
	public RedisDelayedQueue(RedisMessageStore store, PayloadConverter converter, DataSize maxPayloadSize) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		Assert.isTrue(maxPayloadSize != null && maxPayloadSize.toBytes() > 0,
				() -> "Max payload size must be positive, but was " + maxPayloadSize);
		this.store = store;
		this.converter = converter;
		this.maxPayloadBytes = maxPayloadSize.toBytes();
		this.clock = Clock.systemUTC();
	}

	/**
	 * Sets the monitor told about scheduled and cancelled messages (for metrics).
	 * @param monitor the monitor
	 */
	public void setMonitor(DelayQueueMonitor monitor) {
		Assert.notNull(monitor, "Monitor must not be null");
		this.monitor = monitor;
	}

	/**
	 * Sets the registry of the observation made around each scheduled message; with a tracer, the observation
	 * stores the current trace context in the message's headers, so the handler's observation continues the trace.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "ObservationRegistry must not be null");
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Sets a convention to name and tag the schedule observation, instead of the default.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable DelayQueueScheduleObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	@Override
	public String schedule(String topic, Object payload, Duration delay) {
		return schedule(ScheduleRequest.builder(topic, payload).delay(delay).build()).id();
	}

	@Override
	public String scheduleAt(String topic, Object payload, Instant dueAt) {
		return schedule(ScheduleRequest.builder(topic, payload).dueAt(dueAt).build()).id();
	}

	@Override
	public boolean schedule(String topic, String id, Object payload, Duration delay) {
		return schedule(ScheduleRequest.builder(topic, payload).id(id).delay(delay).build()).scheduled();
	}

	@Override
	public ScheduleResult schedule(ScheduleRequest request) {
		return scheduleAll(List.of(request)).get(0);
	}

	@Override
	public List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
		Assert.notNull(requests, "Requests must not be null");
		Instant now = this.clock.instant();
		boolean observed = !this.observationRegistry.isNoop();
		Map<String, List<Integer>> positionsByTopic = new LinkedHashMap<>();
		List<RedisMessageStore.NewMessage> messages = new ArrayList<>(requests.size());
		List<Observation> observations = observed ? new ArrayList<>(requests.size()) : List.of();
		ScheduleResult[] results = new ScheduleResult[requests.size()];
		try {
			for (int i = 0; i < requests.size(); i++) {
				ScheduleRequest request = requests.get(i);
				Assert.notNull(request, () -> "Request must not be null");
				messages.add(prepare(request, now, observations));
				positionsByTopic.computeIfAbsent(request.topic(), (topic) -> new ArrayList<>()).add(i);
			}
			positionsByTopic.forEach((topic, positions) -> {
				List<RedisMessageStore.NewMessage> batch = new ArrayList<>(positions.size());
				positions.forEach((position) -> batch.add(messages.get(position)));
				List<Boolean> stored = this.store.schedule(topic, batch);
				int count = 0;
				for (int j = 0; j < positions.size(); j++) {
					results[positions.get(j)] = new ScheduleResult(batch.get(j).id(), stored.get(j));
					count += stored.get(j) ? 1 : 0;
				}
				this.monitor.scheduled(topic, count);
				registerTopic(topic);
			});
		}
		catch (RuntimeException ex) {
			observations.forEach((observation) -> observation.error(ex));
			throw ex;
		}
		finally {
			observations.forEach(Observation::stop);
		}
		return List.of(results);
	}

	private void registerTopic(String topic) {
		if (this.registeredTopics.add(topic)) {
			try {
				this.store.registerTopics(List.of(topic));
			}
			catch (RuntimeException ex) {
				this.registeredTopics.remove(topic);
			}
		}
	}

	private RedisMessageStore.NewMessage prepare(ScheduleRequest request, Instant now, List<Observation> observations) {
		byte[] payload = this.converter.write(request.payload());
		if (payload.length > this.maxPayloadBytes) {
			throw new PayloadTooLargeException(request.topic(), payload.length, this.maxPayloadBytes);
		}
		String id = (request.id() != null) ? request.id() : MessageIds.generate();
		Map<String, String> headers = request.headers();
		if (!this.observationRegistry.isNoop()) {
			Map<String, String> carrier = new LinkedHashMap<>(headers);
			DelayedMessageSenderContext context = new DelayedMessageSenderContext(carrier, request.topic(), id);
			observations.add(DelayQueueObservation.SCHEDULE
				.observation(this.observationConvention, DefaultDelayQueueScheduleObservationConvention.INSTANCE,
						() -> context, this.observationRegistry)
				.start());
			headers = carrier;
		}
		byte[] envelope = new Envelope(now, headers, payload).encode();
		return new RedisMessageStore.NewMessage(id, dueTime(request.delay(), request.dueAt()), envelope);
	}

	private static RedisMessageStore.DueTime dueTime(Duration delay, Instant dueAt) {
		if (dueAt != null) {
			long millis = dueAt.toEpochMilli();
			boolean fraction = dueAt.getNano() % 1_000_000 != 0;
			return RedisMessageStore.DueTime.at(fraction ? millis + 1 : millis);
		}
		return RedisMessageStore.DueTime.in(toMillisRoundedUp(delay));
	}

	static long toMillisRoundedUp(Duration delay) {
		long millis = delay.toMillis();
		return (delay.getNano() % 1_000_000 != 0) ? millis + 1 : millis;
	}

	@Override
	public boolean cancel(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		boolean cancelled = this.store.cancel(topic, id);
		if (cancelled) {
			this.monitor.cancelled(topic);
		}
		return cancelled;
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		Topics.validate(topic);
		MessageIds.validate(id);
		ScheduleRequest.validateDelay(delay);
		return this.store.reschedule(topic, id, RedisMessageStore.DueTime.in(toMillisRoundedUp(delay)));
	}

	@Override
	public TopicStats stats(String topic) {
		Topics.validate(topic);
		return this.store.stats(topic);
	}

	@Override
	public List<DeadLetter> deadLetters(String topic, int offset, int limit) {
		Topics.validate(topic);
		Assert.isTrue(offset >= 0, () -> "Offset must not be negative, but was " + offset);
		Assert.isTrue(limit >= 1 && limit <= MAX_DEAD_LETTER_PAGE,
				() -> "Limit must be between 1 and " + MAX_DEAD_LETTER_PAGE + ", but was " + limit);
		return this.store.deadLetters(topic, offset, limit);
	}

	@Override
	public boolean replayDeadLetter(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		return this.store.replayDeadLetter(topic, id);
	}

	@Override
	public long replayDeadLetters(String topic) {
		Topics.validate(topic);
		return this.store.replayDeadLetters(topic);
	}

	@Override
	public boolean purgeDeadLetter(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		return this.store.purgeDeadLetter(topic, id);
	}

	@Override
	public long purgeDeadLetters(String topic) {
		Topics.validate(topic);
		return this.store.purgeDeadLetters(topic);
	}

}
