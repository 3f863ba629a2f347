package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.Topics;

import org.springframework.util.Assert;

/**
 * The {@link AsyncDelayedQueue} of a {@link RedisDelayedQueue} ({@link RedisDelayedQueue#async()}): the same writer
 * (payload limit, metrics, observation), partitioning and transaction following, on the store's non-blocking
 * operations. Arguments are validated and payloads prepared on the calling thread, before anything is sent; the
 * futures complete on the client's I/O thread.
 */
final class RedisAsyncDelayedQueue implements AsyncDelayedQueue {

	private final MessageWriter writer;

	private final MessageInfos infos;

	private final PartitionRouter router;

	private final TransactionalWrites transactionalWrites;

	RedisAsyncDelayedQueue(MessageWriter writer, MessageInfos infos, PartitionRouter router,
			TransactionalWrites transactionalWrites) {
		this.writer = writer;
		this.infos = infos;
		this.router = router;
		this.transactionalWrites = transactionalWrites;
	}

	@Override
	public CompletableFuture<String> schedule(String topic, Object payload, Duration delay) {
		return schedule(ScheduleRequest.builder(topic, payload).delay(delay).build()).thenApply(ScheduleResult::id);
	}

	@Override
	public CompletableFuture<String> scheduleAt(String topic, Object payload, Instant dueAt) {
		return schedule(ScheduleRequest.builder(topic, payload).dueAt(dueAt).build()).thenApply(ScheduleResult::id);
	}

	@Override
	public CompletableFuture<Boolean> schedule(String topic, String id, Object payload, Duration delay) {
		refuseInTransaction("schedule(topic, id, payload, delay)", "schedule(ScheduleRequest)");
		return schedule(ScheduleRequest.builder(topic, payload).id(id).delay(delay).build())
			.thenApply(ScheduleResult::scheduled);
	}

	@Override
	public CompletableFuture<ScheduleResult> schedule(ScheduleRequest request) {
		Assert.notNull(request, "Request must not be null");
		return scheduleAll(List.of(request)).thenApply((results) -> results.get(0));
	}

	@Override
	public CompletableFuture<List<ScheduleResult>> scheduleAll(List<ScheduleRequest> requests) {
		Assert.notNull(requests, "Requests must not be null");
		MessagePreparation.Prepared prepared = this.writer.prepareAll(requests);
		if (this.transactionalWrites.follows()) {
			// the calling thread is in a transaction, which already waits for Redis: as the blocking queue does
			RuntimeException failure = null;
			try {
				requests.stream().map(ScheduleRequest::topic).distinct().forEach(this.router::check);
				return CompletableFuture.completedFuture(this.transactionalWrites.schedule(requests,
						prepared.messages()));
			}
			catch (RuntimeException ex) {
				failure = ex;
				throw ex;
			}
			finally {
				prepared.end(failure);
			}
		}
		CompletableFuture<Void> checked = (requests.size() == 1) ? this.router.checkAsync(requests.get(0).topic())
				: this.router.checkAsync(requests.stream().map(ScheduleRequest::topic).distinct().toList());
		// checked already (every call but a topic's first): straight on
		return prepared.endWith((checked.isDone() && !checked.isCompletedExceptionally())
				? this.writer.storeAsync(requests, prepared.messages())
				: checked.thenCompose((done) -> this.writer.storeAsync(requests, prepared.messages())));
	}

	@Override
	public CompletableFuture<Boolean> cancel(String topic, String id) {
		refuseInTransaction("cancel(topic, id)", "cancelAfterCommit(topic, id)");
		return cancelNow(topic, id);
	}

	@Override
	public CompletableFuture<Boolean> cancelAfterCommit(String topic, String id) {
		if (!this.transactionalWrites.follows()) {
			return cancelNow(topic, id);
		}
		Topics.validate(topic);
		MessageIds.validate(id);
		this.router.check(topic);
		return this.transactionalWrites.cancel(topic, id).toCompletableFuture();
	}

	private CompletableFuture<Boolean> cancelNow(String topic, String id) {
		Topics.validate(topic);
		MessageIds.validate(id);
		return this.router.checkAsync(topic).thenCompose((checked) -> this.writer.cancelAsync(topic, id));
	}

	@Override
	public CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
		refuseInTransaction("reschedule(topic, id, delay)", "rescheduleAfterCommit(topic, id, delay)");
		return rescheduleNow(topic, id, delay);
	}

	@Override
	public CompletableFuture<Boolean> rescheduleAfterCommit(String topic, String id, Duration delay) {
		if (!this.transactionalWrites.follows()) {
			return rescheduleNow(topic, id, delay);
		}
		Topics.validate(topic);
		MessageIds.validate(id);
		ScheduleRequest.validateDelay(delay);
		this.router.check(topic);
		return this.transactionalWrites.reschedule(topic, id, delay).toCompletableFuture();
	}

	private CompletableFuture<Boolean> rescheduleNow(String topic, String id, Duration delay) {
		Topics.validate(topic);
		MessageIds.validate(id);
		ScheduleRequest.validateDelay(delay);
		return this.router.checkAsync(topic).thenCompose((checked) -> this.writer.rescheduleAsync(topic, id, delay));
	}

	@Override
	public CompletableFuture<ReplaceResult> scheduleOrReplace(ScheduleRequest request) {
		refuseInTransaction("scheduleOrReplace(request)", "scheduleOrReplaceAfterCommit(request)");
		return replace(request);
	}

	@Override
	public CompletableFuture<ReplaceResult> scheduleOrReplaceAfterCommit(ScheduleRequest request) {
		return replace(request);
	}

	private CompletableFuture<ReplaceResult> replace(ScheduleRequest request) {
		Assert.notNull(request, "Request must not be null");
		Assert.isTrue(request.id() != null, "Schedule or replace needs a message id: set one with the builder's id()");
		MessagePreparation.Prepared prepared = this.writer.prepareAll(List.of(request));
		if (this.transactionalWrites.follows()) {
			RuntimeException failure = null;
			try {
				this.router.check(request.topic());
				return this.transactionalWrites.replace(request.topic(), prepared.messages().get(0))
					.toCompletableFuture();
			}
			catch (RuntimeException ex) {
				failure = ex;
				throw ex;
			}
			finally {
				prepared.end(failure);
			}
		}
		return prepared.endWith(this.router.checkAsync(request.topic())
			.thenCompose((checked) -> this.writer.replaceAsync(request.topic(), prepared.messages().get(0))));
	}

	@Override
	public CompletableFuture<Optional<MessageInfo>> lookup(String topic, String id) {
		return this.infos.lookupAsync(topic, id);
	}

	private void refuseInTransaction(String method, String instead) {
		if (this.transactionalWrites.follows()) {
			throw new IllegalStateException("Inside a transaction " + method + " happens after the commit, so its "
					+ "result is not known yet: use " + instead + ", whose result completes after the commit");
		}
	}

}
