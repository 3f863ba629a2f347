package io.github.delayqueue.core;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.Topics;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.StoredDeadLetter;
import io.github.delayqueue.redis.StoredMessage;
import io.github.delayqueue.redis.TopicCounts;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.GroupCommit;
import io.github.delayqueue.support.micrometer.DefaultDelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueObservation;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * The {@link DelayedQueue} on Redis: every operation is one atomic script on the topic's keys, timed by the
 * Redis server's clock; {@link #scheduleAll(List)} writes up to a thousand messages of a topic per script call.
 */
public class RedisDelayedQueue implements DelayedQueue, DelayedQueueAdmin, ApplicationEventPublisherAware {

	/** The default limit on a serialised payload: 1 MB. */
	public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);

	private static final int MAX_DEAD_LETTER_PAGE = 1000;

	/** How deep the dead letters of a topic of several partitions can be paged (each partition reads that many). */
	private static final int MAX_DEAD_LETTER_WINDOW = 10_000;

	/** Calls storing fewer messages of one topic than this share script calls with concurrent ones. */
	private static final int SHARED_CALL_LIMIT = 16;

	/** Topics whose shared calls are kept at most. */
	private static final int MAX_SHARED_CALL_TOPICS = 1024;

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final long maxPayloadBytes;

	private final Clock clock;

	private final Set<String> registeredTopics = ConcurrentHashMap.newKeySet();

	/** Topics whose partition count this queue has checked against the one Redis keeps. */
	private final Set<String> checkedTopics = ConcurrentHashMap.newKeySet();

	private TopicPartitioning partitioning = TopicPartitioning.NONE;

	/**
	 * Per topic: small schedule calls that threads make at the same time go to Redis together, as one script call
	 * (a lone call goes at once).
	 */
	private final Map<String, GroupCommit<NewMessage, Boolean>> sharedCalls = new ConcurrentHashMap<>();

	private DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable DelayQueueScheduleObservationConvention observationConvention;

	private boolean transactionAware = true;

	private @Nullable ApplicationEventPublisher eventPublisher;

	private final TransactionalWrites transactionalWrites = new TransactionalWrites(new ImmediateWrites(),
			this::afterCommitFailed);

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
	 * Sets how many partitions each topic has (consumers of a topic must use the same); by default one each.
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		Assert.notNull(partitioning, "TopicPartitioning must not be null");
		this.partitioning = partitioning;
		this.checkedTopics.clear();
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

	/**
	 * Sets whether changes made inside a Spring-managed transaction wait for it to commit (the default): inside
	 * one, {@code schedule}, {@code scheduleAll}, {@code cancelAfterCommit} and {@code rescheduleAfterCommit} are
	 * validated and prepared at once, written to Redis after the commit, and dropped on rollback; their results are
	 * pending until then (see {@link ScheduleResult}). The methods whose {@code boolean} result cannot be known
	 * before the commit ({@code schedule} with an id, {@code cancel}, {@code reschedule}) throw inside a transaction
	 * rather than guess. Outside a transaction every method acts at once either way. With {@code false}, every
	 * method acts at once also inside transactions.
	 * @param transactionAware whether changes follow the transaction
	 */
	public void setTransactionAware(boolean transactionAware) {
		this.transactionAware = transactionAware;
	}

	/**
	 * Whether changes made inside a Spring-managed transaction wait for it to commit.
	 * @return whether changes follow the transaction
	 */
	public boolean isTransactionAware() {
		return this.transactionAware;
	}

	/**
	 * Sets where an {@link AfterCommitFailedEvent} is published when changes held for a transaction fail after it
	 * committed (the application context, as a bean).
	 * @param eventPublisher the publisher
	 */
	@Override
	public void setApplicationEventPublisher(ApplicationEventPublisher eventPublisher) {
		this.eventPublisher = eventPublisher;
	}

	private boolean followsTransaction() {
		return this.transactionAware && TransactionalWrites.isTransactionActive();
	}

	private void refuseInTransaction(String method, String instead) {
		if (followsTransaction()) {
			throw new IllegalStateException("Inside a transaction " + method + " happens after the commit, so its "
					+ "boolean result is not known yet: use " + instead + ", whose result completes after the commit");
		}
	}

	private void afterCommitFailed(AfterCommitFailedEvent event) {
		try {
			this.monitor.afterCommitFailed(event.getTopic(), event.getOperation(), event.getIds().size());
		}
		finally {
			ApplicationEventPublisher publisher = this.eventPublisher;
			if (publisher != null) {
				publisher.publishEvent(new AfterCommitFailedEvent(this, event.getOperation(), event.getTopic(),
						event.getIds(), event.getFailure()));
			}
		}
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
		refuseInTransaction("schedule(topic, id, payload, delay)", "schedule(ScheduleRequest)");
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
		List<Observation> observations = observed ? new ArrayList<>(requests.size()) : List.of();
		List<NewMessage> messages = new ArrayList<>(requests.size());
		try {
			for (ScheduleRequest request : requests) {
				Assert.notNull(request, "Request must not be null");
				messages.add(prepare(request, now, observations));
			}
			requests.stream().map(ScheduleRequest::topic).distinct().forEach(this::checkPartitions);
			if (followsTransaction()) {
				return this.transactionalWrites.schedule(requests, messages);
			}
			return store(requests, messages);
		}
		catch (RuntimeException ex) {
			observations.forEach((observation) -> observation.error(ex));
			throw ex;
		}
		finally {
			observations.forEach(Observation::stop);
		}
	}

	/**
	 * Stores prepared messages partition by partition, in atomic chunks; if a chunk fails, says exactly what was
	 * stored.
	 */
	private List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages) {
		Map<Partition, List<Integer>> positionsByPartition = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			positionsByPartition.computeIfAbsent(partition(requests.get(i).topic(), messages.get(i).id()),
					(partition) -> new ArrayList<>()).add(i);
		}
		PartialScheduleException.Outcome[] outcomes = new PartialScheduleException.Outcome[requests.size()];
		Arrays.fill(outcomes, PartialScheduleException.Outcome.NOT_SENT);
		for (Map.Entry<Partition, List<Integer>> entry : positionsByPartition.entrySet()) {
			String topic = entry.getKey().topic();
			String partition = entry.getKey().name();
			List<Integer> positions = entry.getValue();
			for (int from = 0; from < positions.size(); from += RedisMessageStore.CHUNK_SIZE) {
				List<Integer> chunk = positions.subList(from,
						Math.min(positions.size(), from + RedisMessageStore.CHUNK_SIZE));
				List<NewMessage> batch = new ArrayList<>(chunk.size());
				chunk.forEach((position) -> batch.add(messages.get(position)));
				List<Boolean> stored;
				try {
					stored = (batch.size() < SHARED_CALL_LIMIT) ? sharedCall(partition).submit(batch)
							: this.store.schedule(partition, batch);
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

	/** The shared calls of one partition ({@link RedisMessageStore#partitionName(String, int) its name}). */
	private GroupCommit<NewMessage, Boolean> sharedCall(String partition) {
		GroupCommit<NewMessage, Boolean> call = this.sharedCalls.get(partition);
		if (call == null) {
			if (this.sharedCalls.size() >= MAX_SHARED_CALL_TOPICS) {
				// topics named at run time must not grow this without bound: starting afresh only costs sharing
				// (a call in progress keeps the instance it has)
				this.sharedCalls.clear();
			}
			call = this.sharedCalls.computeIfAbsent(partition, (key) -> new GroupCommit<>(
					(messages) -> this.store.schedule(key, messages), RedisMessageStore.CHUNK_SIZE, 2));
		}
		return call;
	}

	/** How many topics' shared calls are kept now (for tests). */
	int sharedCallTopics() {
		return this.sharedCalls.size();
	}

	/** The partition a message id belongs to. */
	private Partition partition(String topic, String id) {
		return new Partition(topic,
				RedisMessageStore.partitionName(topic, this.partitioning.partitionOf(topic, id)));
	}

	/** The store's names of all partitions a topic has in Redis (reads follow Redis, whatever this queue uses). */
	private List<String> partitionNames(String topic) {
		int count = this.store.partitionsOf(topic);
		List<String> names = new ArrayList<>(count);
		for (int partition = 0; partition < count; partition++) {
			names.add(RedisMessageStore.partitionName(topic, partition));
		}
		return names;
	}

	/** The store's name of the partition of a message id, after checking the topic's partition count once. */
	private String partitionOf(String topic, String id) {
		checkPartitions(topic);
		return partition(topic, id).name();
	}

	/** Once per topic: Redis must keep the partition count this queue uses (see TopicPartitioning). */
	private void checkPartitions(String topic) {
		if (!this.checkedTopics.contains(topic)) {
			this.store.checkPartitions(topic, this.partitioning.partitions(topic));
			this.checkedTopics.add(topic);
		}
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

	private NewMessage prepare(ScheduleRequest request, Instant now, List<Observation> observations) {
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
		return new NewMessage(id, dueTime(request.delay(), request.dueAt()), now, headers, payload);
	}

	private static DueTime dueTime(@Nullable Duration delay, @Nullable Instant dueAt) {
		if (dueAt != null) {
			long millis = dueAt.toEpochMilli();
			boolean fraction = dueAt.getNano() % 1_000_000 != 0;
			// an instant before 1970 is as due as 1970
			return DueTime.at(Math.max(0, fraction ? millis + 1 : millis));
		}
		return DueTime.in(toMicrosRoundedUp(delay));
	}

	static long toMicrosRoundedUp(Duration delay) {
		long micros = delay.toNanos() / 1000;
		return (delay.getNano() % 1000 != 0) ? micros + 1 : micros;
	}

	@Override
	public boolean cancel(String topic, String id) {
		refuseInTransaction("cancel(topic, id)", "cancelAfterCommit(topic, id)");
		return cancelNow(topic, id);
	}

	@Override
	public CompletionStage<Boolean> cancelAfterCommit(String topic, String id) {
		if (!followsTransaction()) {
			return CompletableFuture.completedStage(cancelNow(topic, id));
		}
		Topics.validate(topic);
		MessageIds.validate(id);
		checkPartitions(topic);
		return this.transactionalWrites.cancel(topic, id);
	}

	private boolean cancelNow(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		boolean cancelled = this.store.cancel(partitionOf(topic, id), id);
		if (cancelled) {
			this.monitor.cancelled(topic);
		}
		return cancelled;
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		refuseInTransaction("reschedule(topic, id, delay)", "rescheduleAfterCommit(topic, id, delay)");
		return rescheduleNow(topic, id, delay);
	}

	@Override
	public CompletionStage<Boolean> rescheduleAfterCommit(String topic, String id, Duration delay) {
		if (!followsTransaction()) {
			return CompletableFuture.completedStage(rescheduleNow(topic, id, delay));
		}
		Topics.validate(topic);
		MessageIds.validate(id);
		ScheduleRequest.validateDelay(delay);
		checkPartitions(topic);
		return this.transactionalWrites.reschedule(topic, id, delay);
	}

	private boolean rescheduleNow(String topic, String id, Duration delay) {
		Topics.validate(topic);
		MessageIds.validate(id);
		ScheduleRequest.validateDelay(delay);
		return this.store.reschedule(partitionOf(topic, id), id, DueTime.in(toMicrosRoundedUp(delay)));
	}

	@Override
	public TopicStats stats(String topic) {
		Topics.validate(topic);
		long waiting = 0;
		long ready = 0;
		long leased = 0;
		long dead = 0;
		Instant nextDueAt = null;
		for (String partition : partitionNames(topic)) {
			TopicCounts counts = this.store.stats(partition);
			waiting += counts.waiting();
			ready += counts.ready();
			leased += counts.leased();
			dead += counts.dead();
			Instant next = counts.nextDueAt();
			if (next != null && (nextDueAt == null || next.isBefore(nextDueAt))) {
				nextDueAt = next;
			}
		}
		return new TopicStats(topic, waiting, ready, leased, dead, nextDueAt);
	}

	@Override
	public Set<String> knownTopics() {
		return this.store.knownTopics();
	}

	@Override
	public int partitions(String topic) {
		Topics.validate(topic);
		return this.store.partitionsOf(topic);
	}

	@Override
	public void changePartitions(String topic, int partitions) {
		Topics.validate(topic);
		Assert.isTrue(partitions >= 1 && partitions <= TopicPartitioning.MAX_PARTITIONS,
				() -> "Partitions must be between 1 and " + TopicPartitioning.MAX_PARTITIONS + ", but was " + partitions);
		this.store.changePartitions(topic, partitions);
		this.checkedTopics.remove(topic);
	}

	@Override
	public List<DeadLetter> deadLetters(String topic, int offset, int limit) {
		Topics.validate(topic);
		Assert.isTrue(offset >= 0, () -> "Offset must not be negative, but was " + offset);
		Assert.isTrue(limit >= 1 && limit <= MAX_DEAD_LETTER_PAGE,
				() -> "Limit must be between 1 and " + MAX_DEAD_LETTER_PAGE + ", but was " + limit);
		List<String> partitions = partitionNames(topic);
		Assert.isTrue(partitions.size() == 1 || offset <= MAX_DEAD_LETTER_WINDOW - limit,
				() -> "A topic of several partitions lists its first " + MAX_DEAD_LETTER_WINDOW
						+ " dead letters at most (offset + limit), but offset was " + offset);
		if (partitions.size() == 1) {
			return this.store.deadLetters(partitions.get(0), offset, limit)
				.stream()
				.map((letter) -> toDeadLetter(topic, letter))
				.toList();
		}
		// oldest first across partitions: the page is among the first offset + limit of each
		List<StoredDeadLetter> merged = new ArrayList<>();
		for (String partition : partitions) {
			merged.addAll(this.store.deadLetters(partition, 0, offset + limit));
		}
		merged.sort(Comparator.comparing(StoredDeadLetter::diedAt).thenComparing(StoredDeadLetter::id));
		return merged.stream().skip(offset).limit(limit).map((letter) -> toDeadLetter(topic, letter)).toList();
	}

	private static DeadLetter toDeadLetter(String topic, StoredDeadLetter letter) {
		StoredMessage message = letter.message();
		String error = letter.error();
		if (!message.isReadable()) {
			error = "Unreadable stored message: " + message.malformation()
					+ ((error != null) ? " (last error: " + error + ")" : "");
		}
		return new DeadLetter(letter.id(), topic, letter.attempts(), error, letter.diedAt(), message.createdAt(),
				message.headers(), message.payload());
	}

	@Override
	public boolean replayDeadLetter(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		return this.store.replayDeadLetter(partitionOf(topic, id), id);
	}

	@Override
	public long replayDeadLetters(String topic) {
		Topics.validate(topic);
		return partitionNames(topic).stream().mapToLong(this.store::replayDeadLetters).sum();
	}

	@Override
	public boolean purgeDeadLetter(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		return this.store.purgeDeadLetter(partitionOf(topic, id), id);
	}

	@Override
	public long purgeDeadLetters(String topic) {
		Topics.validate(topic);
		return partitionNames(topic).stream().mapToLong(this.store::purgeDeadLetters).sum();
	}

	/** What the transactional writes run after the commit: this queue's own writes, at once. */
	private final class ImmediateWrites implements TransactionalWrites.Target {

		@Override
		public List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages) {
			return RedisDelayedQueue.this.store(requests, messages);
		}

		@Override
		public boolean cancel(String topic, String id) {
			return cancelNow(topic, id);
		}

		@Override
		public boolean reschedule(String topic, String id, Duration delay) {
			return rescheduleNow(topic, id, delay);
		}

	}

	/** A topic and the store's name of one of its partitions. */
	private record Partition(String topic, String name) {
	}

}
