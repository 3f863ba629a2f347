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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
import io.github.delayqueue.support.AsyncGroupCommit;
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
 * Small calls that threads make at the same time share one script call per partition; so do small asynchronous calls
 * made while others are in flight (from one thread or many), which never block a thread.
 */
final class MessageWriter implements HeldWrite.Target {

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

	/** Per partition: small asynchronous schedule calls made while others are in flight go to Redis together. */
	private final Map<String, AsyncGroupCommit<NewMessage, Boolean>> asyncSharedCalls = new ConcurrentHashMap<>();

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

	/** The observation current on this thread in the writer's registry, if any. */
	@Nullable Observation currentObservation() {
		return this.observationRegistry.getCurrentObservation();
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
				request.group(), request.priority());
	}

	/**
	 * Validates and prepares requests, every one before anything is written (a delay counts from here: the time the
	 * call takes before its script runs is not added to it); their schedule observations have started, and end with
	 * {@link Prepared#end}. A bad request throws, and ends the observations started so far.
	 */
	Prepared prepareAll(List<ScheduleRequest> requests) {
		long sinceNanos = System.nanoTime();
		Instant now = now();
		List<Observation> observations = isObserved() ? new ArrayList<>(requests.size()) : List.of();
		List<NewMessage> messages = new ArrayList<>(requests.size());
		try {
			for (ScheduleRequest request : requests) {
				Assert.notNull(request, "Request must not be null");
				messages.add(prepare(request, now, sinceNanos, observations));
			}
		}
		catch (RuntimeException ex) {
			new Prepared(requests, messages, observations).end(ex);
			throw ex;
		}
		return new Prepared(requests, messages, observations);
	}

	/**
	 * Validated requests, their prepared messages, and the schedule observations that end with their write.
	 *
	 * @param requests the requests
	 * @param messages their messages, in order
	 * @param observations the observations started (none if not observed)
	 */
	record Prepared(List<ScheduleRequest> requests, List<NewMessage> messages, List<Observation> observations) {

		/** Ends the observations: with the write's failure, if it failed. */
		void end(@Nullable Throwable failure) {
			if (failure != null) {
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				this.observations.forEach((observation) -> observation.error(cause));
			}
			this.observations.forEach(Observation::stop);
		}

		/** Ends the observations when an asynchronous write completes. */
		<T> CompletableFuture<T> endWith(CompletableFuture<T> write) {
			if (this.observations.isEmpty()) {
				return write;
			}
			return write.whenComplete((result, failure) -> end(failure));
		}

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
	 * Stores prepared messages partition by partition, in atomic chunks of at most
	 * {@value RedisMessageStore#SCHEDULE_CHUNK_SIZE}; if a chunk fails, says exactly what was stored.
	 */
	@Override
	public List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages) {
		if (requests.size() == 1) {
			return List.of(storeOne(requests.get(0).topic(), messages.get(0)));
		}
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
			for (int from = 0; from < positions.size(); from += RedisMessageStore.SCHEDULE_CHUNK_SIZE) {
				List<Integer> chunk = positions.subList(from,
						Math.min(positions.size(), from + RedisMessageStore.SCHEDULE_CHUNK_SIZE));
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

	/** {@link #store(List, List)} of one message: one atomic call, whose failure is Redis's own. */
	private ScheduleResult storeOne(String topic, NewMessage message) {
		String partition = this.router.partitionOfChecked(topic, message.id());
		boolean added = sharedCall(partition).submit(List.of(message)).get(0);
		this.monitor.scheduled(topic, added ? 1 : 0);
		registerTopic(topic);
		return new ScheduleResult(message.id(), added);
	}

	/**
	 * {@link #store(List, List)} without blocking: each partition's chunks are sent at once (small ones share script
	 * calls with others in flight), and the future completes when all have replied. If a call of several chunks
	 * fails in some, it fails with a {@link PartialScheduleException} saying request by request what was stored; a
	 * call of one chunk fails with Redis's exception. The topics' partition counts must have been checked.
	 */
	CompletableFuture<List<ScheduleResult>> storeAsync(List<ScheduleRequest> requests, List<NewMessage> messages) {
		if (messages.size() == 1) {
			// one message (the usual call): no bookkeeping of chunks
			String topic = requests.get(0).topic();
			NewMessage message = messages.get(0);
			registerTopicAsync(topic);
			return asyncSharedCall(this.router.partitionOfChecked(topic, message.id())).submit(List.of(message))
				.thenApply((stored) -> {
					boolean added = stored.get(0);
					if (added) {
						this.monitor.scheduled(topic, 1);
					}
					return List.of(new ScheduleResult(message.id(), added));
				});
		}
		Map<String, List<Integer>> positionsByPartition = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			positionsByPartition.computeIfAbsent(
					this.router.partitionOfChecked(requests.get(i).topic(), messages.get(i).id()),
					(partition) -> new ArrayList<>())
				.add(i);
		}
		PartialScheduleException.Outcome[] outcomes = new PartialScheduleException.Outcome[requests.size()];
		Arrays.fill(outcomes, PartialScheduleException.Outcome.NOT_SENT);
		List<CompletableFuture<?>> chunks = new ArrayList<>();
		for (Map.Entry<String, List<Integer>> entry : positionsByPartition.entrySet()) {
			String partition = entry.getKey();
			List<Integer> positions = entry.getValue();
			String topic = requests.get(positions.get(0)).topic();
			registerTopicAsync(topic);
			for (int from = 0; from < positions.size(); from += RedisMessageStore.SCHEDULE_CHUNK_SIZE) {
				List<Integer> chunk = positions.subList(from,
						Math.min(positions.size(), from + RedisMessageStore.SCHEDULE_CHUNK_SIZE));
				List<NewMessage> batch = new ArrayList<>(chunk.size());
				chunk.forEach((position) -> batch.add(messages.get(position)));
				CompletableFuture<List<Boolean>> sent = (batch.size() < SHARED_CALL_LIMIT)
						? asyncSharedCall(partition).submit(batch) : this.store.messages().scheduleAsync(partition, batch);
				chunks.add(sent.whenComplete((stored, failure) -> {
					synchronized (outcomes) {
						if (failure != null) {
							chunk.forEach((position) -> outcomes[position] = PartialScheduleException.Outcome.UNKNOWN);
							return;
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
				}));
			}
		}
		CompletableFuture<?> all = (chunks.size() == 1) ? chunks.get(0)
				: CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new));
		return all.handle((ignored, failure) -> {
			if (failure != null) {
				Throwable cause = (failure instanceof CompletionException && failure.getCause() != null)
						? failure.getCause() : failure;
				if (chunks.size() == 1) {
					// the whole call was one atomic chunk: nothing to tell apart
					throw (cause instanceof RuntimeException runtime) ? runtime : new CompletionException(cause);
				}
				synchronized (outcomes) {
					throw new PartialScheduleException(requests, messages.stream().map(NewMessage::id).toList(),
							List.of(outcomes), cause);
				}
			}
			List<ScheduleResult> results = new ArrayList<>(requests.size());
			for (int i = 0; i < requests.size(); i++) {
				results.add(new ScheduleResult(messages.get(i).id(),
						outcomes[i] == PartialScheduleException.Outcome.STORED));
			}
			return results;
		});
	}

	/** The asynchronous shared calls of one partition. */
	private AsyncGroupCommit<NewMessage, Boolean> asyncSharedCall(String partition) {
		AsyncGroupCommit<NewMessage, Boolean> call = this.asyncSharedCalls.get(partition);
		if (call == null) {
			if (this.asyncSharedCalls.size() >= MAX_SHARED_CALL_TOPICS) {
				// as for the blocking calls: starting afresh only costs sharing
				this.asyncSharedCalls.clear();
			}
			call = this.asyncSharedCalls.computeIfAbsent(partition, (key) -> new AsyncGroupCommit<>(
					(batch) -> this.store.messages().scheduleAsync(key, batch), RedisMessageStore.SCHEDULE_CHUNK_SIZE, 2));
		}
		return call;
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
					(batch) -> this.store.messages().schedule(key, batch), RedisMessageStore.SCHEDULE_CHUNK_SIZE, 2));
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

	private void registerTopicAsync(String topic) {
		if (this.registeredTopics.add(topic)) {
			this.store.topics().registerAsync(topic).whenComplete((done, failure) -> {
				if (failure != null) {
					this.registeredTopics.remove(topic);
				}
			});
		}
	}

	/** {@link #cancel(String, String)} without blocking; the topic's partition count must have been checked. */
	CompletableFuture<Boolean> cancelAsync(String topic, String id) {
		return this.store.messages().cancelAsync(this.router.partitionOfChecked(topic, id), id)
			.thenApply((cancelled) -> {
				if (cancelled) {
					this.monitor.cancelled(topic);
				}
				return cancelled;
			});
	}

	/** {@link #reschedule(String, String, Duration)} without blocking; the partition count must have been checked. */
	CompletableFuture<Boolean> rescheduleAsync(String topic, String id, Duration delay) {
		return this.store.messages().rescheduleAsync(this.router.partitionOfChecked(topic, id), id,
				DueTime.in(toMicrosRoundedUp(delay)));
	}

	/** {@link #replace(String, NewMessage)} without blocking; the partition count must have been checked. */
	CompletableFuture<ReplaceResult> replaceAsync(String topic, NewMessage message) {
		registerTopicAsync(topic);
		return this.store.messages().replaceAsync(this.router.partitionOfChecked(topic, message.id()), message)
			.thenApply((replacement) -> {
				if (replacement == Replacement.SCHEDULED) {
					this.monitor.scheduled(topic, 1);
				}
				return ReplaceResult.valueOf(replacement.name());
			});
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
