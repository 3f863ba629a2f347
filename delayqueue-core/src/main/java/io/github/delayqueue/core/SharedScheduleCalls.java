package io.github.delayqueue.core;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.internal.AsyncGroupCommit;
import io.github.delayqueue.support.internal.GroupCommit;

/**
 * Sends a partition's schedule calls to Redis: small calls that threads make at the same time share one script call
 * per partition, and so do small asynchronous calls made while others are in flight (from one thread or many), which
 * never block a thread; larger calls go on their own.
 */
final class SharedScheduleCalls {

	/** Calls storing fewer messages of one topic than this share script calls with concurrent ones. */
	private static final int SHARED_CALL_LIMIT = 16;

	/** Partitions whose shared calls are kept at most. */
	private static final int MAX_SHARED_CALL_TOPICS = 1024;

	private final RedisMessageStore store;

	/** Per partition: small schedule calls made at the same time go to Redis together, as one script call. */
	private final Map<String, GroupCommit<NewMessage, Boolean>> sharedCalls = new ConcurrentHashMap<>();

	/** Per partition: small asynchronous schedule calls made while others are in flight go to Redis together. */
	private final Map<String, AsyncGroupCommit<NewMessage, Boolean>> asyncSharedCalls = new ConcurrentHashMap<>();

	SharedScheduleCalls(RedisMessageStore store) {
		this.store = store;
	}

	/** Stores a batch of one partition (at most one atomic chunk), in a shared call if it is small. */
	List<Boolean> schedule(String partition, List<NewMessage> batch) {
		return (batch.size() < SHARED_CALL_LIMIT) ? sharedCall(partition).submit(batch)
				: this.store.messages().schedule(partition, batch);
	}

	/** {@link #schedule(String, List)} without blocking. */
	CompletableFuture<List<Boolean>> scheduleAsync(String partition, List<NewMessage> batch) {
		return (batch.size() < SHARED_CALL_LIMIT) ? asyncSharedCall(partition).submit(batch)
				: this.store.messages().scheduleAsync(partition, batch);
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

}
