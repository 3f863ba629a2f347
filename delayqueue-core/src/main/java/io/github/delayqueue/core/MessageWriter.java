package io.github.delayqueue.core;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/**
 * The producer's side of the queue: prepares messages (payload written and bounded, id, headers with the trace
 * context, due time, expiry) and writes them, and cancels, moves and replaces them, each in its partition, at once.
 * Small calls that threads make at the same time share one script call per partition; so do small asynchronous calls
 * made while others are in flight (from one thread or many), which never block a thread.
 * <p>
 * A facade over one object per job: {@link MessagePreparation} prepares messages before anything is written,
 * {@link PartitionWrites} writes them and the changes by id to their partitions (with {@link SharedScheduleCalls}
 * sharing the small calls and {@link TopicRegistration} registering the topics written to).
 */
final class MessageWriter implements HeldWrite.Target {

	private final MessagePreparation preparation;

	private final PartitionWrites writes;

	MessageWriter(RedisMessageStore store, PayloadConverter converter, long maxPayloadBytes, PartitionRouter router) {
		this.preparation = new MessagePreparation(converter, maxPayloadBytes);
		this.writes = new PartitionWrites(store, router);
	}

	void setMonitor(DelayQueueMonitor monitor) {
		this.writes.setMonitor(monitor);
	}

	DelayQueueMonitor monitor() {
		return this.writes.monitor();
	}

	void setObservationRegistry(ObservationRegistry observationRegistry) {
		this.preparation.setObservationRegistry(observationRegistry);
	}

	boolean isObserved() {
		return this.preparation.isObserved();
	}

	/** The observation current on this thread in the writer's registry, if any. */
	@Nullable Observation currentObservation() {
		return this.preparation.currentObservation();
	}

	void setObservationConvention(@Nullable DelayQueueScheduleObservationConvention observationConvention) {
		this.preparation.setObservationConvention(observationConvention);
	}

	/**
	 * Validates and prepares requests, every one before anything is written (a delay counts from here: the time the
	 * call takes before its script runs is not added to it); their schedule observations have started, and end with
	 * {@link MessagePreparation.Prepared#end}. A bad request throws, and ends the observations started so far.
	 */
	MessagePreparation.Prepared prepareAll(List<ScheduleRequest> requests) {
		return this.preparation.prepareAll(requests);
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
		this.preparation.checkSize(topic, tick.payload());
		NewMessage message = tick;
		Observation observation = null;
		if (isObserved()) {
			Map<String, String> carrier = new LinkedHashMap<>(tick.headers());
			observation = this.preparation.startObservation(carrier, topic, tick.id());
			message = new NewMessage(tick.id(), tick.due(), tick.createdAt(), carrier, tick.payload(), tick.expiry());
		}
		try {
			return this.writes.storeTick(topic, schedule, message, digest);
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

	/**
	 * Stores prepared messages partition by partition, in atomic chunks of at most
	 * {@value RedisMessageStore#SCHEDULE_CHUNK_SIZE}; if a chunk fails, says exactly what was stored.
	 */
	@Override
	public List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages) {
		return this.writes.store(requests, messages);
	}

	/**
	 * {@link #store(List, List)} without blocking: each partition's chunks are sent at once (small ones share script
	 * calls with others in flight), and the future completes when all have replied. If a call of several chunks
	 * fails in some, it fails with a {@link io.github.delayqueue.PartialScheduleException} saying request by request
	 * what was stored; a call of one chunk fails with Redis's exception. The topics' partition counts must have been
	 * checked.
	 */
	CompletableFuture<List<ScheduleResult>> storeAsync(List<ScheduleRequest> requests, List<NewMessage> messages) {
		return this.writes.storeAsync(requests, messages);
	}

	/** How many partitions' shared calls are kept now (for tests). */
	int sharedCallTopics() {
		return this.writes.sharedCallTopics();
	}

	/** {@link #cancel(String, String)} without blocking; the topic's partition count must have been checked. */
	CompletableFuture<Boolean> cancelAsync(String topic, String id) {
		return this.writes.cancelAsync(topic, id);
	}

	/** {@link #reschedule(String, String, Duration)} without blocking; the partition count must have been checked. */
	CompletableFuture<Boolean> rescheduleAsync(String topic, String id, Duration delay) {
		return this.writes.rescheduleAsync(topic, id, delay);
	}

	/** {@link #replace(String, NewMessage)} without blocking; the partition count must have been checked. */
	CompletableFuture<ReplaceResult> replaceAsync(String topic, NewMessage message) {
		return this.writes.replaceAsync(topic, message);
	}

	@Override
	public boolean cancel(String topic, String id) {
		return this.writes.cancel(topic, id);
	}

	@Override
	public boolean reschedule(String topic, String id, Duration delay) {
		return this.writes.reschedule(topic, id, delay);
	}

	@Override
	public ReplaceResult replace(String topic, NewMessage message) {
		return this.writes.replace(topic, message);
	}

}
