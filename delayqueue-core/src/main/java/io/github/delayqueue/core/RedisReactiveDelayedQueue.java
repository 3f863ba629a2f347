package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.MessageIds;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.Topics;
import io.micrometer.observation.Observation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.util.Assert;

/**
 * The {@link ReactiveDelayedQueue} on Redis: a {@link RedisDelayedQueue}'s non-blocking operations (its
 * {@link RedisDelayedQueue#async() asynchronous view}, so the same writer, payload limit, partitioning, metrics and
 * observation), as Reactor publishers that act when subscribed to, and follow the reactive transaction of the
 * subscriber's context. A schedule continues the trace of the observation in the subscriber's context (where WebFlux
 * keeps the request's), so the trace travels across the delay to the listener as it does from a blocking call. Outside a reactive transaction, a subscription made inside a transaction of the subscribing
 * thread follows that one, as the asynchronous view does.
 *
 * @since 1.0.0
 */
public class RedisReactiveDelayedQueue implements ReactiveDelayedQueue {

	/**
	 * The key of the current observation in a Reactor context: {@code ObservationThreadLocalAccessor.KEY}, spelt
	 * here so that the context-propagation library need not be on the class path.
	 */
	private static final String OBSERVATION_KEY = "micrometer.observation";

	private final RedisDelayedQueue queue;

	private final AsyncDelayedQueue async;

	private final ReactiveTransactionalWrites transactions;

	/**
	 * Creates the reactive queue of a queue.
	 * @param queue the queue whose settings and store it uses
	 * @throws IllegalStateException if the queue's store has no non-blocking connection (see
	 * {@link RedisDelayedQueue#async()})
	 */
	public RedisReactiveDelayedQueue(RedisDelayedQueue queue) {
		Assert.notNull(queue, "RedisDelayedQueue must not be null");
		this.queue = queue;
		this.async = queue.async();
		this.transactions = queue.reactiveTransactionalWrites();
	}

	/**
	 * The queue this one schedules to.
	 * @return the blocking queue
	 */
	public RedisDelayedQueue getDelayedQueue() {
		return this.queue;
	}

	@Override
	public Mono<String> schedule(String topic, Object payload, Duration delay) {
		return Mono.defer(() -> schedule(ScheduleRequest.builder(topic, payload).delay(delay).build()))
			.map(ScheduleResult::id);
	}

	@Override
	public Mono<String> scheduleAt(String topic, Object payload, Instant dueAt) {
		return Mono.defer(() -> schedule(ScheduleRequest.builder(topic, payload).dueAt(dueAt).build()))
			.map(ScheduleResult::id);
	}

	@Override
	public Mono<Boolean> schedule(String topic, String id, Object payload, Duration delay) {
		return Mono.deferContextual((context) -> {
			ScheduleRequest request = ScheduleRequest.builder(topic, payload).id(id).delay(delay).build();
			return refusedInTransaction("schedule(topic, id, payload, delay)", "schedule(ScheduleRequest)",
					() -> inScope(context, () -> this.async.schedule(request)).thenApply(ScheduleResult::scheduled));
		});
	}

	@Override
	public Mono<ScheduleResult> schedule(ScheduleRequest request) {
		return Mono.defer(() -> {
			Assert.notNull(request, "Request must not be null");
			return scheduled(List.of(request)).map((results) -> results.get(0));
		});
	}

	@Override
	public Flux<ScheduleResult> scheduleAll(List<ScheduleRequest> requests) {
		return Mono.defer(() -> {
			Assert.notNull(requests, "Requests must not be null");
			return scheduled(requests);
		}).flatMapIterable(Function.identity());
	}

	private Mono<List<ScheduleResult>> scheduled(List<ScheduleRequest> requests) {
		return Mono.deferContextual((context) -> this.transactions.current().flatMap((transaction) -> {
			if (transaction.isEmpty()) {
				return fromFuture(() -> inScope(context, () -> this.async.scheduleAll(requests)));
			}
			// validated and prepared now, before the commit; written after it
			MessagePreparation.Prepared prepared = inScope(context, () -> this.queue.writer().prepareAll(requests));
			List<String> topics = requests.stream().map(ScheduleRequest::topic).distinct().toList();
			return fromFuture(() -> prepared.endWith(this.queue.router().checkAsync(topics)))
				.then(Mono.fromSupplier(() -> transaction.get().schedule(requests, prepared.messages())));
		}));
	}

	@Override
	public Mono<Boolean> cancel(String topic, String id) {
		return Mono.defer(() -> {
			Topics.validate(topic);
			MessageIds.validate(id);
			return refusedInTransaction("cancel(topic, id)", "cancelAfterCommit(topic, id)",
					() -> this.async.cancel(topic, id));
		});
	}

	@Override
	public Mono<Boolean> reschedule(String topic, String id, Duration delay) {
		return Mono.defer(() -> {
			Topics.validate(topic);
			MessageIds.validate(id);
			ScheduleRequest.validateDelay(delay);
			return refusedInTransaction("reschedule(topic, id, delay)", "rescheduleAfterCommit(topic, id, delay)",
					() -> this.async.reschedule(topic, id, delay));
		});
	}

	@Override
	public Mono<CompletionStage<Boolean>> cancelAfterCommit(String topic, String id) {
		return Mono.defer(() -> {
			Topics.validate(topic);
			MessageIds.validate(id);
			return afterCommit(topic, (transaction) -> transaction.cancel(topic, id),
					() -> this.async.cancelAfterCommit(topic, id));
		});
	}

	@Override
	public Mono<CompletionStage<Boolean>> rescheduleAfterCommit(String topic, String id, Duration delay) {
		return Mono.defer(() -> {
			Topics.validate(topic);
			MessageIds.validate(id);
			ScheduleRequest.validateDelay(delay);
			return afterCommit(topic, (transaction) -> transaction.reschedule(topic, id, delay),
					() -> this.async.rescheduleAfterCommit(topic, id, delay));
		});
	}

	@Override
	public Mono<ReplaceResult> scheduleOrReplace(ScheduleRequest request) {
		return Mono.deferContextual((context) -> {
			checkReplace(request);
			return refusedInTransaction("scheduleOrReplace(request)", "scheduleOrReplaceAfterCommit(request)",
					() -> inScope(context, () -> this.async.scheduleOrReplace(request)));
		});
	}

	@Override
	public Mono<CompletionStage<ReplaceResult>> scheduleOrReplaceAfterCommit(ScheduleRequest request) {
		return Mono.deferContextual((context) -> {
			checkReplace(request);
			return this.transactions.current().flatMap((transaction) -> {
				if (transaction.isEmpty()) {
					return outsideReactiveTransaction(
							() -> inScope(context, () -> this.async.scheduleOrReplaceAfterCommit(request)));
				}
				MessagePreparation.Prepared prepared = inScope(context,
						() -> this.queue.writer().prepareAll(List.of(request)));
				return fromFuture(() -> prepared.endWith(this.queue.router().checkAsync(request.topic())))
					.then(Mono.fromSupplier(
							() -> transaction.get().replace(request.topic(), prepared.messages().get(0))));
			});
		});
	}

	private static void checkReplace(ScheduleRequest request) {
		Assert.notNull(request, "Request must not be null");
		Assert.isTrue(request.id() != null, "Schedule or replace needs a message id: set one with the builder's id()");
	}

	@Override
	public Mono<MessageInfo> lookup(String topic, String id) {
		return fromFuture(() -> this.async.lookup(topic, id)).flatMap(Mono::justOrEmpty);
	}

	/**
	 * Makes a call that starts schedule observations inside the scope of the subscriber's observation, which a
	 * reactive application carries in the Reactor context rather than in a thread local (as WebFlux's server
	 * observation and WebClient do): the schedule continues the subscriber's trace, as a blocking call continues the
	 * calling thread's.
	 */
	@SuppressWarnings("try")
	private <T> T inScope(ContextView context, Supplier<T> call) {
		Object parent = context.getOrDefault(OBSERVATION_KEY, null);
		if (!(parent instanceof Observation observation) || observation.isNoop() || !this.queue.writer().isObserved()
				|| this.queue.writer().currentObservation() == observation) {
			return call.get();
		}
		try (Observation.Scope scope = observation.openScope()) {
			return call.get();
		}
	}

	private <T> Mono<T> refusedInTransaction(String method, String instead, Supplier<CompletableFuture<T>> call) {
		return this.transactions.current().flatMap((transaction) -> {
			if (transaction.isPresent()) {
				return Mono.error(new IllegalStateException("Inside a transaction " + method + " happens after the "
						+ "commit, so its result is not known yet: use " + instead + ", whose result completes after "
						+ "the commit"));
			}
			return fromFuture(call);
		});
	}

	private <T> Mono<CompletionStage<T>> afterCommit(String topic,
			Function<ReactiveTransactionalWrites.Writes, CompletableFuture<T>> hold,
			Supplier<CompletableFuture<T>> outside) {
		return this.transactions.current().flatMap((transaction) -> {
			if (transaction.isEmpty()) {
				return outsideReactiveTransaction(outside);
			}
			return fromFuture(() -> this.queue.router().checkAsync(topic))
				.then(Mono.fromSupplier(() -> hold.apply(transaction.get())));
		});
	}

	/**
	 * An after-commit change outside a reactive transaction: done at once, emitted once done; or, inside a transaction
	 * of the subscribing thread, held for its commit and emitted at once (waiting for it there would wait forever).
	 */
	private <T> Mono<CompletionStage<T>> outsideReactiveTransaction(Supplier<CompletableFuture<T>> change) {
		return Mono.defer(() -> {
			boolean held = this.queue.followsTransaction();
			CompletableFuture<T> outcome = change.get();
			return held ? Mono.just(outcome) : fromFuture(() -> outcome).map(CompletableFuture::completedStage);
		});
	}

	/** A future's outcome as a Mono; cancelling the Mono does not cancel the future (the write is sent already). */
	private static <T> Mono<T> fromFuture(Supplier<CompletableFuture<T>> future) {
		return Mono.fromFuture(future, true);
	}

}
