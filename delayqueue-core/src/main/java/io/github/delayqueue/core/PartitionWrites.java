package io.github.delayqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Replacement;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;

/**
 * Writes prepared messages and changes by id to their partitions, at once: stores messages in atomic chunks (saying
 * exactly what was stored if a chunk fails), cancels, moves and replaces them, and stores a recurring schedule's
 * ticks; it counts what it wrote on the monitor and registers the topics it wrote to.
 */
final class PartitionWrites {

	private final RedisMessageStore store;

	private final PartitionRouter router;

	private final SharedScheduleCalls calls;

	private final TopicRegistration topics;

	private volatile DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	PartitionWrites(RedisMessageStore store, PartitionRouter router) {
		this.store = store;
		this.router = router;
		this.calls = new SharedScheduleCalls(store);
		this.topics = new TopicRegistration(store);
	}

	void setMonitor(DelayQueueMonitor monitor) {
		this.monitor = monitor;
	}

	DelayQueueMonitor monitor() {
		return this.monitor;
	}

	/**
	 * Stores the message of a recurring schedule's tick in the topic's first partition, counted as scheduled when
	 * stored.
	 * @return the id it was stored under, or {@code null} if another instance stored the tick, or the definition
	 * changed
	 */
	@Nullable String storeTick(String topic, String schedule, NewMessage message, String digest) {
		String stored = this.store.messages().tick(TopicKeys.partitionName(topic, 0), schedule, message, digest);
		if (stored != null) {
			this.monitor.scheduled(topic, 1);
			this.topics.register(topic);
		}
		return stored;
	}

	/**
	 * Stores prepared messages partition by partition, in atomic chunks of at most
	 * {@value RedisMessageStore#SCHEDULE_CHUNK_SIZE}; if a chunk fails, says exactly what was stored.
	 */
	List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages) {
		if (requests.size() == 1) {
			return List.of(storeOne(requests.get(0).topic(), messages.get(0)));
		}
		Map<String, List<Integer>> positionsByPartition = positionsByPartition(requests, messages);
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
					stored = this.calls.schedule(partition, batch);
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
			this.topics.register(topic);
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
		boolean added = this.calls.schedule(partition, List.of(message)).get(0);
		this.monitor.scheduled(topic, added ? 1 : 0);
		this.topics.register(topic);
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
			this.topics.registerAsync(topic);
			return this.calls.scheduleAsync(this.router.partitionOfChecked(topic, message.id()), List.of(message))
				.thenApply((stored) -> {
					boolean added = stored.get(0);
					if (added) {
						this.monitor.scheduled(topic, 1);
					}
					return List.of(new ScheduleResult(message.id(), added));
				});
		}
		Map<String, List<Integer>> positionsByPartition = positionsByPartition(requests, messages);
		PartialScheduleException.Outcome[] outcomes = new PartialScheduleException.Outcome[requests.size()];
		Arrays.fill(outcomes, PartialScheduleException.Outcome.NOT_SENT);
		List<CompletableFuture<?>> chunks = new ArrayList<>();
		for (Map.Entry<String, List<Integer>> entry : positionsByPartition.entrySet()) {
			String partition = entry.getKey();
			List<Integer> positions = entry.getValue();
			String topic = requests.get(positions.get(0)).topic();
			this.topics.registerAsync(topic);
			for (int from = 0; from < positions.size(); from += RedisMessageStore.SCHEDULE_CHUNK_SIZE) {
				List<Integer> chunk = positions.subList(from,
						Math.min(positions.size(), from + RedisMessageStore.SCHEDULE_CHUNK_SIZE));
				List<NewMessage> batch = new ArrayList<>(chunk.size());
				chunk.forEach((position) -> batch.add(messages.get(position)));
				CompletableFuture<List<Boolean>> sent = this.calls.scheduleAsync(partition, batch);
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
				DueTime.in(MessagePreparation.toMicrosRoundedUp(delay)));
	}

	/** {@link #replace(String, NewMessage)} without blocking; the partition count must have been checked. */
	CompletableFuture<ReplaceResult> replaceAsync(String topic, NewMessage message) {
		this.topics.registerAsync(topic);
		return this.store.messages().replaceAsync(this.router.partitionOfChecked(topic, message.id()), message)
			.thenApply((replacement) -> {
				if (replacement == Replacement.SCHEDULED) {
					this.monitor.scheduled(topic, 1);
				}
				return ReplaceResult.valueOf(replacement.name());
			});
	}

	boolean cancel(String topic, String id) {
		boolean cancelled = this.store.messages().cancel(this.router.partitionOf(topic, id), id);
		if (cancelled) {
			this.monitor.cancelled(topic);
		}
		return cancelled;
	}

	boolean reschedule(String topic, String id, Duration delay) {
		return this.store.messages().reschedule(this.router.partitionOf(topic, id), id,
				DueTime.in(MessagePreparation.toMicrosRoundedUp(delay)));
	}

	ReplaceResult replace(String topic, NewMessage message) {
		Replacement replacement = this.store.messages().replace(this.router.partitionOf(topic, message.id()), message);
		this.topics.register(topic);
		if (replacement == Replacement.SCHEDULED) {
			this.monitor.scheduled(topic, 1);
		}
		return ReplaceResult.valueOf(replacement.name());
	}

	/** How many partitions' shared calls are kept now (for tests). */
	int sharedCallTopics() {
		return this.calls.sharedCallTopics();
	}

	/**
	 * Where each message of a batch goes: its positions in the batch, by partition, in the order the partitions first
	 * appear.
	 */
	private Map<String, List<Integer>> positionsByPartition(List<ScheduleRequest> requests, List<NewMessage> messages) {
		Map<String, List<Integer>> positions = new LinkedHashMap<>();
		for (int i = 0; i < requests.size(); i++) {
			positions.computeIfAbsent(this.router.partitionOfChecked(requests.get(i).topic(), messages.get(i).id()),
					(partition) -> new ArrayList<>())
				.add(i);
		}
		return positions;
	}

}
