package io.github.delayqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.redis.NewMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.transaction.NoTransactionException;
import org.springframework.transaction.reactive.TransactionSynchronization;
import org.springframework.transaction.reactive.TransactionSynchronizationManager;

/**
 * Holds a queue's writes made inside a reactive transaction (a {@code ReactiveTransactionManager}'s, such as R2DBC's,
 * found in the Reactor context) until it has committed, as {@link TransactionalWrites} does for a thread's
 * transaction: then they run in the order they were made, without blocking, and the transaction's completion waits
 * for them; on rollback none runs. A write that fails after the commit is logged, counted and published as an
 * {@link AfterCommitFailedEvent}; its outcome completes exceptionally, and the transaction's publisher still
 * completes (the commit cannot be undone). Only the reactive queue touches this class, so that an application
 * without Reactor never loads it.
 */
final class ReactiveTransactionalWrites {

	private static final Logger logger = LoggerFactory.getLogger(ReactiveTransactionalWrites.class);

	private final MessageWriter writer;

	private final PartitionRouter router;

	private final TransactionalWrites settings;

	private final Consumer<AfterCommitFailedEvent> failures;

	ReactiveTransactionalWrites(MessageWriter writer, PartitionRouter router, TransactionalWrites settings,
			Consumer<AfterCommitFailedEvent> failures) {
		this.writer = writer;
		this.router = router;
		this.settings = settings;
		this.failures = failures;
	}

	/**
	 * This queue's list in the reactive transaction of the subscriber's context, made and registered on first use;
	 * empty outside a reactive transaction, or when the queue does not follow transactions.
	 */
	Mono<Optional<Writes>> current() {
		if (!this.settings.isEnabled()) {
			return Mono.just(Optional.empty());
		}
		return TransactionSynchronizationManager.forCurrentTransaction()
			.map((manager) -> (manager.isSynchronizationActive() && manager.isActualTransactionActive())
					? Optional.of(writesOf(manager)) : Optional.<Writes>empty())
			.onErrorResume(NoTransactionException.class, (ex) -> Mono.just(Optional.empty()));
	}

	private Writes writesOf(TransactionSynchronizationManager manager) {
		for (TransactionSynchronization synchronization : manager.getSynchronizations()) {
			if (synchronization instanceof Writes writes && writes.owner() == this) {
				return writes;
			}
		}
		Writes writes = new Writes();
		manager.registerSynchronization(writes);
		return writes;
	}

	private void failed(String operation, String topic, List<String> ids, Throwable ex) {
		RuntimeException failure = (ex instanceof RuntimeException runtime) ? runtime : new CompletionException(ex);
		logger.error("Topic '{}': the reactive transaction committed but the {} of messages {} that it held failed; "
				+ "they did not change in the queue", topic, operation, ids, ex);
		try {
			this.failures.accept(new AfterCommitFailedEvent(this, operation, topic, ids, failure));
		}
		catch (RuntimeException listenerFailure) {
			logger.warn("Topic '{}': telling of the failed {} failed too", topic, operation, listenerFailure);
		}
	}

	private static Throwable causeOf(Throwable ex) {
		return (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
	}

	/** One write held for the commit. */
	private interface Write {

		/** Runs it after the commit; the future never fails (a failure is reported and completes the outcomes). */
		CompletableFuture<Void> run();

		void rolledBack();

		void unknown(RuntimeException ex);

	}

	/** Messages to store, with one outcome each. */
	private final class Schedules implements Write {

		private final List<ScheduleRequest> requests;

		private final List<NewMessage> messages;

		private final List<CompletableFuture<Boolean>> outcomes;

		Schedules(List<ScheduleRequest> requests, List<NewMessage> messages, List<CompletableFuture<Boolean>> outcomes) {
			this.requests = requests;
			this.messages = messages;
			this.outcomes = outcomes;
		}

		void absorb(Schedules next) {
			this.requests.addAll(next.requests);
			this.messages.addAll(next.messages);
			this.outcomes.addAll(next.outcomes);
		}

		@Override
		public CompletableFuture<Void> run() {
			// held back until the commit: a delay counts from the write, as it would outside a transaction
			this.messages.replaceAll(NewMessage::countedFromNow);
			CompletableFuture<List<ScheduleResult>> stored;
			try {
				stored = ReactiveTransactionalWrites.this.writer.storeAsync(this.requests, this.messages);
			}
			catch (RuntimeException ex) {
				stored = CompletableFuture.failedFuture(ex);
			}
			return stored.handle((results, failure) -> {
				if (failure == null) {
					for (int i = 0; i < results.size(); i++) {
						this.outcomes.get(i).complete(results.get(i).scheduled());
					}
				}
				else if (causeOf(failure) instanceof PartialScheduleException partial) {
					partlyStored(partial);
				}
				else {
					fail(causeOf(failure), this.messages);
				}
				return null;
			});
		}

		private void partlyStored(PartialScheduleException ex) {
			List<NewMessage> failed = new ArrayList<>();
			List<PartialScheduleException.Entry> entries = ex.getEntries();
			for (int i = 0; i < entries.size(); i++) {
				switch (entries.get(i).outcome()) {
					case STORED -> this.outcomes.get(i).complete(true);
					case EXISTED -> this.outcomes.get(i).complete(false);
					default -> failed.add(this.messages.get(i));
				}
			}
			fail(ex, failed);
		}

		private void fail(Throwable ex, List<NewMessage> failed) {
			// outcomes already completed (stored or existed) keep their value
			this.outcomes.forEach((outcome) -> outcome.completeExceptionally(ex));
			// one report per topic, naming its messages
			AfterCommitFailures.idsByTopic(this.requests, this.messages, failed)
				.forEach((topic, ids) -> failed("schedule", topic, ids, ex));
		}

		@Override
		public void rolledBack() {
			this.outcomes.forEach((outcome) -> outcome.cancel(false));
		}

		@Override
		public void unknown(RuntimeException ex) {
			fail(ex, this.messages);
		}

	}

	/** A change of one message by id: a cancel, a reschedule, a replace. */
	private final class Change<T> implements Write {

		private final String operation;

		private final String topic;

		private final String id;

		private final Supplier<CompletableFuture<T>> change;

		private final CompletableFuture<T> outcome = new CompletableFuture<>();

		Change(String operation, String topic, String id, Supplier<CompletableFuture<T>> change) {
			this.operation = operation;
			this.topic = topic;
			this.id = id;
			this.change = change;
		}

		@Override
		public CompletableFuture<Void> run() {
			CompletableFuture<T> done;
			try {
				done = this.change.get();
			}
			catch (RuntimeException ex) {
				done = CompletableFuture.failedFuture(ex);
			}
			return done.handle((value, failure) -> {
				if (failure == null) {
					this.outcome.complete(value);
				}
				else {
					this.outcome.completeExceptionally(causeOf(failure));
					failed(this.operation, this.topic, List.of(this.id), causeOf(failure));
				}
				return null;
			});
		}

		@Override
		public void rolledBack() {
			this.outcome.cancel(false);
		}

		@Override
		public void unknown(RuntimeException ex) {
			this.outcome.completeExceptionally(ex);
			failed(this.operation, this.topic, List.of(this.id), ex);
		}

	}

	/**
	 * One reactive transaction's writes, and the synchronization that runs them once it has completed with a commit.
	 * The transaction's publisher completes once they ran (written or reported).
	 */
	final class Writes implements TransactionSynchronization {

		private final List<Write> writes = new ArrayList<>();

		private boolean ran;

		ReactiveTransactionalWrites owner() {
			return ReactiveTransactionalWrites.this;
		}

		/** Holds validated and prepared messages, whose topics are checked, until the commit. */
		List<ScheduleResult> schedule(List<ScheduleRequest> requests, List<NewMessage> messages) {
			List<CompletableFuture<Boolean>> outcomes = new ArrayList<>(messages.size());
			List<ScheduleResult> results = new ArrayList<>(messages.size());
			for (NewMessage message : messages) {
				CompletableFuture<Boolean> outcome = new CompletableFuture<>();
				outcomes.add(outcome);
				results.add(ScheduleResult.pendingCommit(message.id(), outcome));
			}
			add(new Schedules(new ArrayList<>(requests), new ArrayList<>(messages), outcomes));
			return results;
		}

		/** Holds a cancel (of a checked topic) until the commit. */
		CompletableFuture<Boolean> cancel(String topic, String id) {
			return hold(new Change<>("cancel", topic, id,
					() -> ReactiveTransactionalWrites.this.writer.cancelAsync(topic, id)));
		}

		/** Holds a reschedule (of a checked topic) until the commit. */
		CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay) {
			return hold(new Change<>("reschedule", topic, id,
					() -> ReactiveTransactionalWrites.this.writer.rescheduleAsync(topic, id, delay)));
		}

		/** Holds a prepared schedule-or-replace (of a checked topic) until the commit. */
		CompletableFuture<ReplaceResult> replace(String topic, NewMessage message) {
			return hold(new Change<>("replace", topic, message.id(),
					() -> ReactiveTransactionalWrites.this.writer.replaceAsync(topic, message.countedFromNow())));
		}

		private <T> CompletableFuture<T> hold(Change<T> change) {
			add(change);
			return change.outcome;
		}

		private synchronized void add(Write write) {
			if (this.ran) {
				// made from another synchronization after the completion began: runs at once
				write.run();
				return;
			}
			Write last = this.writes.isEmpty() ? null : this.writes.get(this.writes.size() - 1);
			if (last instanceof Schedules schedules && write instanceof Schedules next) {
				schedules.absorb(next);
			}
			else {
				this.writes.add(write);
			}
		}

		@Override
		public Mono<Void> afterCompletion(int status) {
			List<Write> toRun;
			synchronized (this) {
				if (this.ran) {
					return Mono.empty();
				}
				this.ran = true;
				toRun = new ArrayList<>(this.writes);
				this.writes.clear();
			}
			if (status == STATUS_COMMITTED) {
				// one after the other, in the order they were made
				return Flux.fromIterable(toRun).concatMap((write) -> Mono.fromFuture(write::run, true)).then();
			}
			if (status == STATUS_ROLLED_BACK) {
				toRun.forEach(Write::rolledBack);
			}
			else {
				RuntimeException unknown = new IllegalStateException("The reactive transaction ended in an unknown "
						+ "state (committed or not): its queue changes were not made");
				toRun.forEach((write) -> write.unknown(unknown));
			}
			return Mono.empty();
		}

	}

}
