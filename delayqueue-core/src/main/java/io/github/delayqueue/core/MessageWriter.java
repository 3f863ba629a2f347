package io.github.delayqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.ExpiryAction;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.Replacement;
import io.github.delayqueue.redis.TopicKeys;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.GroupCommit;
import io.github.delayqueue.support.micrometer.DefaultDelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueObservation;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The producer's side of the queue: prepares messages (payload written and bounded, id, headers with the trace
 * context, due time, expiry) and writes them, and cancels, moves and replaces them, each in its partition, at once.
 * Small calls that threads make at the same time share one script call per partition.
 */
final class MessageWriter implements TransactionalWrites.Target {

	/** Calls storing fewer messages of one topic than this share script calls with concurrent ones. */
	private static final int SHARED_CALL_LIMIT = 16;

	/** Partitions whose shared calls are kept at most. */
	private static final int MAX_SHARED_CALL_TOPICS = 1024;

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final long maxPayloadBytes;

	private final PartitionRouter router;

	private final Clock clock = Clock.systemUTC();

	private final Set<String> registeredTopics = ConcurrentHashMap.newKeySet();

	/** Per partition: small schedule calls made at the same time go to Redis together, as one script call. */
	private final Map<String, GroupCommit<NewMessage, Boolean>> sharedCalls = new ConcurrentHashMap<>();

	private volatile DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	private volatile ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private volatile @Nullable DelayQueueScheduleObservationConvention observationConvention;

	MessageWriter(RedisMessageStore store, PayloadConverter converter, long maxPayloadBytes, PartitionRouter router) {
		this.store = store;
		this.converter = converter;
		this.maxPayloadBytes = maxPayloadBytes;
		this.router = router;
	}

	void setMonitor(DelayQueueMonitor monitor) {
		this.monitor = monitor;
	}

	DelayQueueMonitor monitor() {
		return this.monitor;
	}

	void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	boolean isObserved() {
		return !this.observationRegistry.isNoop();
	}

	void setObservationConvention(@Nullable DelayQueueScheduleObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	Instant now() {
		return this.clock.instant();
	}

	/**
	 * Prepares a message to store: writes and bounds its payload, gives it an id, starts its observation (which
	 * stores the trace context in its headers); its delay counts from {@code sinceNanos}, the start of the call.
	 */
	NewMessage prepare(ScheduleRequest request, Instant now, long sinceNanos, List<Observation> observations) {
		byte[] payload = this.converter.write(request.payload());
		if (payload.length > this.maxPayloadBytes) {
			throw new PayloadTooLargeException(request.topic(), payload.length, this.maxPayloadBytes);
		}
		Expiry expiry = expiryOf(request, now);
		String id = (request.id() != null) ? request.id() : MessageIds.generate();
		Map<String, String> headers = request.headers();
		if (isObserved()) {
			Map<String, String> carrier = new LinkedHashMap<>(headers);
			DelayedMessageSenderContext context = new DelayedMessageSenderContext(carrier, request.topic(), id);
			observations.add(DelayQueueObservation.SCHEDULE
				.observation(this.observationConvention, DefaultDelayQueueScheduleObservationConvention.INSTANCE,
						() -> context, this.observationRegistry)
				.start());
			headers = carrier;
		}
		return new NewMessage(id, dueTime(request.delay(), request.dueAt(), sinceNanos), now, headers, payload, expiry,
				request.group());
	}

	/**
	 * Stores the message of a recurring schedule's tick, checked, counted and observed as every message is: its
	 * payload bounded, an observation started (which stores the trace context in its headers), counted as scheduled
	 * when stored. It goes to the topic's first partition, which every instance has whatever its partition count,
	 * beside the schedule's cursor, so that instances that disagree on the count still store each tick once.
	 * @return the id it was stored under, or {@code null} if another instance stored the tick, or the definition
	 * changed
	 */
	@Nullable String storeTick(String topic, String schedule, NewMessage tick, String digest) {
		if (tick.payload().length > this.maxPayloadBytes) {
			throw new PayloadTooLargeException(topic, tick.payload().length, this.maxPayloadBytes);
		}
		NewMessage message = tick;
		Observation observation = null;
		if (isObserved()) {
			Map<String, String> carrier = new LinkedHashMap<>(tick.headers());
			DelayedMessageSenderContext context = new DelayedMessageSenderContext(carrier, topic, tick.id());
			observation = DelayQueueObservation.SCHEDULE
				.observation(this.observationConvention, DefaultDelayQueueScheduleObservationConvention.INSTANCE,
						() -> context, this.observationRegistry)
				.start();
			message = new NewMessage(tick.id(), tick.due(), tick.createdAt(), carrier, tick.payload(), tick.expiry());
		}
		try {
			String stored = this.store.messages().tick(TopicKeys.partitionName(topic, 0), schedule, message, digest);
			if (stored != null) {
				this.monitor.scheduled(topic, 1);
				registerTopic(topic);
			}
			return stored;
		}
		catch (RuntimeException ex) {
			if (observation != null) {
				observation.error(ex);
			}
			throw ex;
		}
		finally {
			if (observation != null) {
				observation.stop();
			}
		}
	}

	private static @Nullable Expiry expiryOf(ScheduleRequest request, Instant now) {
		Instant deadline = request.expiresAt();
		if (deadline == null) {
			return null;
		}
		Duration delay = request.delay();
		Assert.isTrue(delay == null || deadline.isAfter(now.plus(delay)), () -> "Expiry deadline " + deadline
				+ " must be after the due time (now plus the delay " + delay + ": " + now.plus(delay) + ")");
		return new Expiry(deadline, request.onExpiry() == ExpiryAction.DISCARD);
	}

	private static DueTime dueTime(@Nullable Duration delay, @Nullable Instant dueAt, long sinceNanos) {
		if (dueAt != null) {
			long millis = dueAt.toEpochMilli();
			boolean fraction = dueAt.getNano() % 1_000_000 != 0;
			// an instant before 1970 is as due as 1970
			return DueTime.at(Math.max(0, fraction ? millis + 1 : millis));
		}
		return DueTime.in(toMicrosRoundedUp(delay), sinceNanos);
	}

	static long toMicrosRoundedUp(Duration delay) {
		long micros = delay.toNanos() / 1000;
		return (delay.getNano() % 1000 != 0) ? micros + 1 : micros;
	}

	/**
	 * Stores prepared messages partition by partition, in atomic chunks; if a chunk fails, says exactly what was
	 * stored.
	 */
	@Override
	public List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages) {
		Map<String, List<Integer>> positionsByPartition = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			positionsByPartition.computeIfAbsent(
					this.router.partitionOfChecked(requests.get(i).topic(), messages.get(i).id()),
					(partition) -> new ArrayList<>())
				.add(i);
		}
		PartialScheduleException.Outcome[] outcomes = new PartialScheduleException.Outcome[requests.size()];
		Arrays.fill(outcomes, PartialScheduleException.Outcome.NOT_SENT);
		for (Map.Entry<String, List<Integer>> entry : positionsByPartition.entrySet()) {
			String partition = entry.getKey();
			List<Integer> positions = entry.getValue();
			String topic = requests.get(positions.get(0)).topic();
			for (int from = 0; from < positions.size(); from += RedisMessageStore.CHUNK_SIZE) {
				List<Integer> chunk = positions.subList(from,
						Math.min(positions.size(), from + RedisMessageStore.CHUNK_SIZE));
				List<NewMessage> batch = new ArrayList<>(chunk.size());
				chunk.forEach((position) -> batch.add(messages.get(position)));
				List<Boolean> stored;
				try {
					stored = (batch.size() < SHARED_CALL_LIMIT) ? sharedCall(partition).submit(batch)
							: this.store.messages().schedule(partition, batch);
				}
				catch (RuntimeException ex) {
					chunk.forEach((position) -> outcomes[position] = PartialScheduleException.Outcome.UNKNOWN);
					if (batch.size() == requests.size()) {
						// the whole call was one atomic chunk: nothing to tell apart
						throw ex;
					}
					throw new PartialScheduleException(requests, messages.stream().map(NewMessage::id).toList(),
							List.of(outcomes), ex);
				}
				int count = 0;
				for (int j = 0; j < chunk.size(); j++) {
					boolean added = stored.get(j);
					outcomes[chunk.get(j)] = added ? PartialScheduleException.Outcome.STORED
							: PartialScheduleException.Outcome.EXISTED;
					count += added ? 1 : 0;
				}
				this.monitor.scheduled(topic, count);
			}
			registerTopic(topic);
		}
		List<ScheduleResult> results = new ArrayList<>(requests.size());
		for (int i = 0; i < requests.size(); i++) {
			results.add(new ScheduleResult(messages.get(i).id(),
					outcomes[i] == PartialScheduleException.Outcome.STORED));
		}
		return results;
	}

	/** The shared calls of one partition. */
	private GroupCommit<NewMessage, Boolean> sharedCall(String partition) {
		GroupCommit<NewMessage, Boolean> call = this.sharedCalls.get(partition);
		if (call == null) {
			if (this.sharedCalls.size() >= MAX_SHARED_CALL_TOPICS) {
				// topics named at run time must not grow this without bound: starting afresh only costs sharing
				// (a call in progress keeps the instance it has)
				this.sharedCalls.clear();
			}
			call = this.sharedCalls.computeIfAbsent(partition, (key) -> new GroupCommit<>(
					(batch) -> this.store.messages().schedule(key, batch), RedisMessageStore.CHUNK_SIZE, 2));
		}
		return call;
	}

	/** How many partitions' shared calls are kept now (for tests). */
	int sharedCallTopics() {
		return this.sharedCalls.size();
	}

	private void registerTopic(String topic) {
		if (this.registeredTopics.add(topic)) {
			try {
				this.store.topics().register(List.of(topic));
			}
			catch (RuntimeException ex) {
				this.registeredTopics.remove(topic);
			}
		}
	}

	@Override
	public boolean cancel(String topic, String id) {
		boolean cancelled = this.store.messages().cancel(this.router.partitionOf(topic, id), id);
		if (cancelled) {
			this.monitor.cancelled(topic);
		}
		return cancelled;
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		return this.store.messages().reschedule(this.router.partitionOf(topic, id), id,
				DueTime.in(toMicrosRoundedUp(delay)));
	}

	@Override
	public ReplaceResult replace(String topic, NewMessage message) {
		Replacement replacement = this.store.messages().replace(this.router.partitionOf(topic, message.id()), message);
		registerTopic(topic);
		if (replacement == Replacement.SCHEDULED) {
			this.monitor.scheduled(topic, 1);
		}
		return ReplaceResult.valueOf(replacement.name());
	}

}
