package io.github.delayqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.redis.NewMessage;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Holds a queue's writes made inside a Spring-managed transaction until it has committed: then they run in the order
 * they were made (consecutive schedules together, in as few script calls as they need); on rollback none runs, and
 * a rollback to a savepoint drops those made after it. Each transaction has its own list: a transaction suspended
 * around an inner one ({@code REQUIRES_NEW}) keeps its writes apart from the inner one's, which run when the inner
 * one commits.
 * <p>
 * A write that fails after the commit cannot undo the commit: it is logged with its ids, counted and published (see
 * {@link AfterCommitFailedEvent}), and its outcome completes exceptionally; the committing thread goes on.
 */
final class TransactionalWrites {

	private static final Logger logger = LoggerFactory.getLogger(TransactionalWrites.class);

	private final Target target;

	private final Consumer<AfterCommitFailedEvent> failures;

	/** This queue's key among the transaction's resources. */
	private final Object key = new Object();

	private volatile boolean enabled = true;

	/**
	 * Creates the holder of one queue's transactional writes.
	 * @param target runs the writes after the commit
	 * @param failures told about each write that failed after its commit
	 */
	TransactionalWrites(Target target, Consumer<AfterCommitFailedEvent> failures) {
		this.target = target;
		this.failures = failures;
	}

	/** Sets whether writes follow transactions (the queue's {@code transactionAware}). */
	void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	boolean isEnabled() {
		return this.enabled;
	}

	/** Whether writes made now on the calling thread follow its transaction. */
	boolean follows() {
		return this.enabled && isTransactionActive();
	}

	/**
	 * Whether the calling thread runs in a transaction whose commit the writes can follow.
	 * @return {@code true} inside an actual transaction with synchronization active
	 */
	static boolean isTransactionActive() {
		return TransactionSynchronizationManager.isSynchronizationActive()
				&& TransactionSynchronizationManager.isActualTransactionActive();
	}

	/** Holds validated and prepared messages until the commit. */
	List<ScheduleResult> schedule(List<ScheduleRequest> requests, List<NewMessage> messages) {
		List<CompletableFuture<Boolean>> outcomes = new ArrayList<>(messages.size());
		List<ScheduleResult> results = new ArrayList<>(messages.size());
		for (NewMessage message : messages) {
			CompletableFuture<Boolean> outcome = new CompletableFuture<>();
			outcomes.add(outcome);
			results.add(ScheduleResult.pendingCommit(message.id(), outcome));
		}
		writes().add(new Schedules(new ArrayList<>(requests), new ArrayList<>(messages), outcomes));
		return results;
	}

	/** Holds a cancel until the commit. */
	CompletionStage<Boolean> cancel(String topic, String id) {
		return hold("cancel", topic, id, () -> this.target.cancel(topic, id));
	}

	/** Holds a reschedule until the commit. */
	CompletionStage<Boolean> reschedule(String topic, String id, Duration delay) {
		return hold("reschedule", topic, id, () -> this.target.reschedule(topic, id, delay));
	}

	/** Holds a prepared schedule-or-replace until the commit. */
	CompletionStage<ReplaceResult> replace(String topic, NewMessage message) {
		return hold("replace", topic, message.id(), () -> this.target.replace(topic, message.countedFromNow()));
	}

	private <T> CompletionStage<T> hold(String operation, String topic, String id, Supplier<T> change) {
		CompletableFuture<T> outcome = new CompletableFuture<>();
		writes().add(new Change<>(operation, topic, id, change, outcome));
		return outcome;
	}

	/**
	 * This queue's list in the current transaction, made and registered on first use. Found among the
	 * transaction's synchronizations, not bound as a resource: Spring suspends, resumes and clears them with the
	 * transaction, so a list never outlives its transaction or leaks into another on the same thread.
	 */
	private Writes writes() {
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof Writes writes && writes.owner() == this) {
				return writes;
			}
		}
		Writes writes = new Writes();
		TransactionSynchronizationManager.registerSynchronization(writes);
		return writes;
	}

	private void failed(String operation, String topic, List<String> ids, RuntimeException ex) {
		logger.error("Topic '{}': the transaction committed but the {} of messages {} that it held failed; they "
				+ "did not change in the queue", topic, operation, ids, ex);
		try {
			this.failures.accept(new AfterCommitFailedEvent(this, operation, topic, ids, ex));
		}
		catch (RuntimeException listenerFailure) {
			logger.warn("Topic '{}': telling of the failed {} failed too", topic, operation, listenerFailure);
		}
	}

	/** Runs the writes after the commit. */
	interface Target {

		/** Stores prepared messages at once; throws {@link PartialScheduleException} if some were not. */
		List<ScheduleResult> store(List<ScheduleRequest> requests, List<NewMessage> messages);

		/** Cancels at once. */
		boolean cancel(String topic, String id);

		/** Reschedules at once. */
		boolean reschedule(String topic, String id, Duration delay);

		/** Schedules or replaces at once. */
		ReplaceResult replace(String topic, NewMessage message);

	}

	/** One write held for the commit. */
	private interface Write {

		void run();

		/** Its transaction rolled back, or the write was made after a savepoint rolled back to. */
		void rolledBack();

		/** Whether its transaction committed is not known. */
		void unknown(RuntimeException ex);

	}

	/** Messages to store, with one outcome each. */
	private final class Schedules implements Write {

		private final List<ScheduleRequest> requests;

		private final List<NewMessage> messages;

		private final List<CompletableFuture<Boolean>> outcomes;

		Schedules(List<ScheduleRequest> requests, List<NewMessage> messages,
				List<CompletableFuture<Boolean>> outcomes) {
			this.requests = requests;
			this.messages = messages;
			this.outcomes = outcomes;
		}

		/** Takes the next schedules in, so that they go in the same calls. */
		void absorb(Schedules next) {
			this.requests.addAll(next.requests);
			this.messages.addAll(next.messages);
			this.outcomes.addAll(next.outcomes);
		}

		@Override
		public void run() {
			List<ScheduleResult> results;
			try {
				// held back until the commit: a delay counts from the write, as it would outside a transaction
				this.messages.replaceAll(NewMessage::countedFromNow);
				results = TransactionalWrites.this.target.store(this.requests, this.messages);
			}
			catch (PartialScheduleException ex) {
				partlyStored(ex);
				return;
			}
			catch (RuntimeException ex) {
				fail(ex, this.messages);
				return;
			}
			catch (Error ex) {
				this.outcomes.forEach((outcome) -> outcome.completeExceptionally(ex));
				throw ex;
			}
			for (int i = 0; i < results.size(); i++) {
				this.outcomes.get(i).complete(results.get(i).scheduled());
			}
		}

		private void partlyStored(PartialScheduleException ex) {
			List<NewMessage> failed = new ArrayList<>();
			List<PartialScheduleException.Entry> entries = ex.getEntries();
			for (int i = 0; i < entries.size(); i++) {
				switch (entries.get(i).outcome()) {
					case STORED -> this.outcomes.get(i).complete(true);
					case EXISTED -> this.outcomes.get(i).complete(false);
					default -> {
						this.outcomes.get(i).completeExceptionally(ex);
						failed.add(this.messages.get(i));
					}
				}
			}
			fail(ex, failed);
		}

		private void fail(RuntimeException ex, List<NewMessage> failed) {
			// outcomes already completed (stored or existed) keep their value
			this.outcomes.forEach((outcome) -> outcome.completeExceptionally(ex));
			// one report per topic, naming its messages
			idsByTopic(this.requests, this.messages, failed).forEach((topic, ids) -> failed("schedule", topic, ids, ex));
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

		private final Supplier<T> change;

		private final CompletableFuture<T> outcome;

		Change(String operation, String topic, String id, Supplier<T> change, CompletableFuture<T> outcome) {
			this.operation = operation;
			this.topic = topic;
			this.id = id;
			this.change = change;
			this.outcome = outcome;
		}

		@Override
		public void run() {
			try {
				this.outcome.complete(this.change.get());
			}
			catch (RuntimeException ex) {
				unknown(ex);
			}
			catch (Error ex) {
				this.outcome.completeExceptionally(ex);
				throw ex;
			}
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
	 * One transaction's writes, and the synchronization that runs them when it has committed. They run on
	 * completion, not in {@code afterCommit}: where Spring only takes part in a JTA transaction, its
	 * {@code afterCommit} comes before the real commit, while completion comes after it; and a write made from
	 * another synchronization's {@code afterCommit} joins the list in time. A savepoint rolled back to drops the
	 * writes made after it.
	 */
	private final class Writes implements TransactionSynchronization {

		private final List<Write> writes = new ArrayList<>();

		/** List sizes at the savepoints set while this list existed. */
		private final Map<Object, Integer> savepoints = new java.util.IdentityHashMap<>();

		/** Writes up to this index may not absorb later ones (a savepoint lies between). */
		private int sealed;

		private boolean ran;

		TransactionalWrites owner() {
			return TransactionalWrites.this;
		}

		synchronized void add(Write write) {
			if (this.ran) {
				write.run();
				return;
			}
			Write last = (this.writes.size() > this.sealed) ? this.writes.get(this.writes.size() - 1) : null;
			if (last instanceof Schedules schedules && write instanceof Schedules next) {
				schedules.absorb(next);
			}
			else {
				this.writes.add(write);
			}
		}

		@Override
		public synchronized void savepoint(Object savepoint) {
			this.savepoints.put(savepoint, this.writes.size());
			this.sealed = this.writes.size();
		}

		@Override
		public synchronized void savepointRollback(Object savepoint) {
			// a savepoint set before this list existed: everything in it came after
			int keep = this.savepoints.getOrDefault(savepoint, 0);
			List<Write> dropped = new ArrayList<>(this.writes.subList(keep, this.writes.size()));
			this.writes.subList(keep, this.writes.size()).clear();
			this.savepoints.values().removeIf((size) -> size > keep);
			this.sealed = Math.min(this.sealed, keep);
			dropped.forEach(Write::rolledBack);
		}

		@Override
		public void afterCompletion(int status) {
			List<Write> toRun;
			synchronized (this) {
				if (this.ran) {
					return;
				}
				this.ran = true;
				toRun = new ArrayList<>(this.writes);
				this.writes.clear();
			}
			if (status == STATUS_COMMITTED) {
				runAll(toRun);
			}
			else if (status == STATUS_ROLLED_BACK) {
				toRun.forEach(Write::rolledBack);
			}
			else {
				RuntimeException unknown = new IllegalStateException(
						"The transaction ended in an unknown state (committed or not): its queue changes were not made");
				toRun.forEach((write) -> write.unknown(unknown));
			}
		}

		private void runAll(List<Write> toRun) {
			Error error = null;
			for (Write write : toRun) {
				try {
					write.run();
				}
				catch (Error ex) {
					// every write still gets its turn; the first error goes on once all ran
					error = (error != null) ? error : ex;
				}
			}
			if (error != null) {
				throw error;
			}
		}

	}

	/**
	 * The ids of the messages among {@code failed} (by identity), by topic in the order they were held: what an
	 * {@link AfterCommitFailedEvent} names. Shared with {@link ReactiveTransactionalWrites}.
	 * @param requests the held requests
	 * @param messages their prepared messages, in the same order
	 * @param failed the messages not stored
	 * @return the ids by topic
	 */
	static Map<String, List<String>> idsByTopic(List<ScheduleRequest> requests, List<NewMessage> messages,
			Collection<NewMessage> failed) {
		Set<NewMessage> unstored = Collections.newSetFromMap(new IdentityHashMap<>());
		unstored.addAll(failed);
		Map<String, List<String>> idsByTopic = new LinkedHashMap<>();
		for (int i = 0; i < messages.size(); i++) {
			if (unstored.contains(messages.get(i))) {
				idsByTopic.computeIfAbsent(requests.get(i).topic(), (topic) -> new ArrayList<>())
					.add(messages.get(i).id());
			}
		}
		return idsByTopic;
	}

}
