package io.github.delayqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.redis.NewMessage;

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
 * <p>
 * This class decides whether a write is held and holds it; a transaction's list and the synchronization that runs it
 * are a {@link HeldWrites}, each write a {@link HeldWrite}, and a failure after the commit is reported by
 * {@link AfterCommitFailures}.
 */
final class TransactionalWrites {

	private final HeldWrite.Target target;

	private final AfterCommitFailures failures;

	/** This queue's key among the transaction's resources. */
	private final Object key = new Object();

	private volatile boolean enabled = true;

	/**
	 * Creates the holder of one queue's transactional writes.
	 * @param target runs the writes after the commit
	 * @param failures told about each write that failed after its commit
	 */
	TransactionalWrites(HeldWrite.Target target, Consumer<AfterCommitFailedEvent> failures) {
		this.target = target;
		this.failures = new AfterCommitFailures(this, failures);
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
		writes().add(new HeldWrite.Schedules(new ArrayList<>(requests), new ArrayList<>(messages), outcomes,
				this.target, this.failures));
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
		writes().add(new HeldWrite.Change<>(operation, topic, id, change, outcome, this.failures));
		return outcome;
	}

	/**
	 * This queue's list in the current transaction, made and registered on first use. Found among the
	 * transaction's synchronizations, not bound as a resource: Spring suspends, resumes and clears them with the
	 * transaction, so a list never outlives its transaction or leaks into another on the same thread.
	 */
	private HeldWrites writes() {
		for (TransactionSynchronization synchronization : TransactionSynchronizationManager.getSynchronizations()) {
			if (synchronization instanceof HeldWrites writes && writes.owner() == this) {
				return writes;
			}
		}
		HeldWrites writes = new HeldWrites(this);
		TransactionSynchronizationManager.registerSynchronization(writes);
		return writes;
	}

}
