package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.Topics;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.util.Assert;
import org.springframework.util.unit.DataSize;

/**
 * The {@link DelayedQueue} on Redis: every operation is one atomic script on the topic's keys, timed by the
 * Redis server's clock; {@link #scheduleAll(List)} writes up to a thousand messages of a topic per script call.
 * Inside a Spring-managed transaction its writes follow the commit (see {@link #setTransactionAware(boolean)}). The
 * operators' side (counts, listing, dead letters, controls) is the {@link RedisDelayedQueueAdmin}, a bean of its own.
 *
 * @since 0.1.0
 */
public class RedisDelayedQueue implements DelayedQueue, ApplicationEventPublisherAware {

	/** The default limit on a serialised payload: 1 MB. */
	public static final DataSize DEFAULT_MAX_PAYLOAD_SIZE = DataSize.ofMegabytes(1);

	private final PartitionRouter router;

	private final RedisMessageStore store;

	private final MessageWriter writer;

	private final MessageInfos infos;

	private volatile @Nullable RedisAsyncDelayedQueue async;

	private @Nullable ApplicationEventPublisher eventPublisher;

	private final TransactionalWrites transactionalWrites;

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
		this.router = new PartitionRouter(store.partitions());
		this.writer = new MessageWriter(store, converter, maxPayloadSize.toBytes(), this.router);
		this.infos = new MessageInfos(store, converter, this.router);
		this.transactionalWrites = new TransactionalWrites(this.writer, this::afterCommitFailed);
	}

	/**
	 * Sets how many partitions each topic has (consumers of a topic must use the same); by default one each.
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		this.router.setPartitioning(partitioning);
	}

	/**
	 * Sets the monitor told about scheduled and cancelled messages (for metrics).
	 * @param monitor the monitor
	 */
	public void setMonitor(DelayQueueMonitor monitor) {
		Assert.notNull(monitor, "Monitor must not be null");
		this.writer.setMonitor(monitor);
	}

	/**
	 * Sets the registry of the observation made around each scheduled message; with a tracer, the observation
	 * stores the current trace context in the message's headers, so the handler's observation continues the trace.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "ObservationRegistry must not be null");
		this.writer.setObservationRegistry(observationRegistry);
	}

	/**
	 * Sets a convention to name and tag the schedule observation, instead of the default.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable DelayQueueScheduleObservationConvention observationConvention) {
		this.writer.setObservationConvention(observationConvention);
	}

	/**
	 * Sets whether changes made inside a Spring-managed transaction wait for it to commit (the default): inside
	 * one, {@code schedule}, {@code scheduleAll}, {@code cancelAfterCommit}, {@code rescheduleAfterCommit} and
	 * {@code scheduleOrReplaceAfterCommit} are validated and prepared at once, written to Redis after the commit, and
	 * dropped on rollback; their results are pending until then (see {@link ScheduleResult}). The methods whose
	 * result cannot be known before the commit ({@code schedule} with an id, {@code cancel}, {@code reschedule},
	 * {@code scheduleOrReplace}) throw inside a transaction rather than guess. Outside a transaction every method acts
	 * at once either way. With {@code false}, every method acts at once also inside transactions.
	 * @param transactionAware whether changes follow the transaction
	 */
	public void setTransactionAware(boolean transactionAware) {
		this.transactionalWrites.setEnabled(transactionAware);
	}

	/**
	 * Whether changes made inside a Spring-managed transaction wait for it to commit.
	 * @return whether changes follow the transaction
	 */
	public boolean isTransactionAware() {
		return this.transactionalWrites.isEnabled();
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

	/**
	 * Stores the message of one tick of a recurring schedule through this queue's writer, like every message: its
	 * payload bounded by the size limit, an observation around it (with the trace context in its headers), counted as
	 * scheduled. It is stored in the topic's first partition, beside the schedule's cursor, unless the cursor is at
	 * or past the tick (another instance stored it) or the schedule's definition changed since it was read. Not
	 * transaction-bound. This is how {@link io.github.delayqueue.recurring.RedisRecurringSchedules} stores ticks;
	 * applications define recurring schedules instead.
	 * @param topic the topic
	 * @param schedule the schedule's name
	 * @param tick the tick's message: its id, due at the tick, its headers and serialised payload
	 * @param definitionDigest the digest of the definition the tick was computed from
	 * @return the id it was stored under (the tick's, or {@code <id>~<n>} if another message has that id), or
	 * {@code null} if it was not stored
	 * @throws io.github.delayqueue.PayloadTooLargeException if the payload is over the size limit
	 * @since 1.0.0
	 */
	public @Nullable String storeTick(String topic, String schedule, NewMessage tick, String definitionDigest) {
		Topics.validate(topic);
		Assert.notNull(tick, "Tick must not be null");
		return this.writer.storeTick(topic, schedule, tick, definitionDigest);
	}

	/** Whether writes made now on the calling thread follow its transaction. */
	boolean followsTransaction() {
		return this.transactionalWrites.follows();
	}

	/**
	 * The same queue for callers that must not wait: every producer operation returns a {@code CompletableFuture} at
	 * once, and no thread waits for Redis (see {@link AsyncDelayedQueue}). It shares this queue's settings (payload
	 * limit, partitioning, transactions, metrics and observation).
	 * @return the asynchronous view of this queue
	 * @throws IllegalStateException if the store has no non-blocking connection (its connection factory is not a
	 * {@code ReactiveRedisConnectionFactory}: Jedis)
	 * @since 1.0.0
	 */
	@Override
	public AsyncDelayedQueue async() {
		RedisAsyncDelayedQueue async = this.async;
		if (async == null) {
			Assert.state(this.store.isNonBlocking(), "The asynchronous API needs a non-blocking Redis connection: "
					+ "the store's connection factory must be a ReactiveRedisConnectionFactory (Lettuce's is; Jedis has "
					+ "none), with Reactor on the class path");
			synchronized (this) {
				async = this.async;
				if (async == null) {
					async = new RedisAsyncDelayedQueue(this.writer, this.infos, this.router, this.transactionalWrites);
					this.async = async;
				}
			}
		}
		return async;
	}

	/** The writer (for the reactive queue over this one). */
	MessageWriter writer() {
		return this.writer;
	}

	/** The partition router (for the reactive queue over this one). */
	PartitionRouter router() {
		return this.router;
	}

	/** The holder of this queue's writes in reactive transactions (for the reactive queue over this one). */
	ReactiveTransactionalWrites reactiveTransactionalWrites() {
		return new ReactiveTransactionalWrites(this.writer, this.router, this.transactionalWrites,
				this::afterCommitFailed);
	}

	private void refuseInTransaction(String method, String instead) {
		if (followsTransaction()) {
			throw new IllegalStateException("Inside a transaction " + method + " happens after the commit, so its "
					+ "result is not known yet: use " + instead + ", whose result completes after the commit");
		}
	}

	private void afterCommitFailed(AfterCommitFailedEvent event) {
		try {
			this.writer.monitor().afterCommitFailed(event.getTopic(), event.getOperation(), event.getIds().size());
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
		return prepared(requests, (messages) -> followsTransaction()
				? this.transactionalWrites.schedule(requests, messages) : this.writer.store(requests, messages));
	}

	@Override
	public ReplaceResult scheduleOrReplace(ScheduleRequest request) {
		refuseInTransaction("scheduleOrReplace(request)", "scheduleOrReplaceAfterCommit(request)");
		return replace(request).toCompletableFuture().join();
	}

	@Override
	public CompletionStage<ReplaceResult> scheduleOrReplaceAfterCommit(ScheduleRequest request) {
		return replace(request);
	}

	private CompletionStage<ReplaceResult> replace(ScheduleRequest request) {
		Assert.notNull(request, "Request must not be null");
		Assert.isTrue(request.id() != null, "Schedule or replace needs a message id: set one with the builder's id()");
		return prepared(List.of(request), (messages) -> followsTransaction()
				? this.transactionalWrites.replace(request.topic(), messages.get(0))
				: CompletableFuture.completedStage(this.writer.replace(request.topic(), messages.get(0))));
	}

	/**
	 * Validates and prepares requests (every one before anything is written), checks their topics' partition counts,
	 * then writes them; each message's schedule observation ends with the write (or its failure).
	 */
	private <T> T prepared(List<ScheduleRequest> requests, Function<List<NewMessage>, T> write) {
		MessagePreparation.Prepared prepared = this.writer.prepareAll(requests);
		RuntimeException failure = null;
		try {
			for (ScheduleRequest request : requests) {
				this.router.check(request.topic());
			}
			return write.apply(prepared.messages());
		}
		catch (RuntimeException ex) {
			failure = ex;
			throw ex;
		}
		finally {
			prepared.end(failure);
		}
	}

	/** How many partitions' shared calls are kept now (for tests). */
	int sharedCallTopics() {
		return this.writer.sharedCallTopics();
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
		this.router.check(topic);
		return this.transactionalWrites.cancel(topic, id);
	}

	private boolean cancelNow(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		return this.writer.cancel(topic, id);
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
		this.router.check(topic);
		return this.transactionalWrites.reschedule(topic, id, delay);
	}

	private boolean rescheduleNow(String topic, String id, Duration delay) {
		Topics.validate(topic);
		MessageIds.validate(id);
		ScheduleRequest.validateDelay(delay);
		return this.writer.reschedule(topic, id, delay);
	}

	@Override
	public Optional<MessageInfo> lookup(String topic, String id) {
		return this.infos.lookup(topic, id);
	}

}
