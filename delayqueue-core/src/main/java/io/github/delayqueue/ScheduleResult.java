package io.github.delayqueue;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What scheduling one message did, or, for a message scheduled inside a transaction, what it will do when the
 * transaction commits.
 * <p>
 * Outside a transaction the outcome is known at once: {@link #scheduled()} says whether the message was stored.
 * Inside a transaction (see {@code RedisDelayedQueue#setTransactionAware}) the message is stored after the commit,
 * so the outcome is not known when the call returns: {@link #isPendingCommit()} is {@code true},
 * {@link #scheduled()} throws rather than guess, and {@link #outcome()} completes after the commit (with whether it
 * was stored), is cancelled if the transaction rolls back, and completes exceptionally if the write after the commit
 * fails.
 *
 * @since 0.1.0
 */
public final class ScheduleResult {

	private final String id;

	private final @Nullable Boolean scheduled;

	private final CompletionStage<Boolean> outcome;

	/**
	 * Creates a known result.
	 * @param id the message id: the caller's, or the generated one
	 * @param scheduled {@code true} if the message was stored; {@code false} if a message with this id already
	 * existed in the topic, in which case nothing changed
	 */
	public ScheduleResult(String id, boolean scheduled) {
		Assert.notNull(id, "Id must not be null");
		this.id = id;
		this.scheduled = scheduled;
		this.outcome = CompletableFuture.completedStage(scheduled);
	}

	private ScheduleResult(String id, CompletionStage<Boolean> outcome) {
		this.id = id;
		this.scheduled = null;
		this.outcome = outcome;
	}

	/**
	 * A result known only after the current transaction commits.
	 * @param id the message id
	 * @param outcome completes with whether the message was stored, after the commit
	 * @return the result
	 */
	public static ScheduleResult pendingCommit(String id, CompletionStage<Boolean> outcome) {
		Assert.notNull(id, "Id must not be null");
		Assert.notNull(outcome, "Outcome must not be null");
		return new ScheduleResult(id, outcome);
	}

	/**
	 * The message id: the caller's, or the generated one (known at once, also inside a transaction).
	 * @return the id
	 */
	public String id() {
		return this.id;
	}

	/**
	 * Whether the message was stored ({@code false}: a message with this id already existed in the topic, and
	 * nothing changed).
	 * @return whether it was stored
	 * @throws IllegalStateException if the message waits for its transaction to commit (use {@link #outcome()})
	 */
	public boolean scheduled() {
		if (this.scheduled == null) {
			throw new IllegalStateException("Message " + this.id + " is scheduled when its transaction commits: "
					+ "whether it was stored is not known yet (use outcome())");
		}
		return this.scheduled;
	}

	/**
	 * Whether the message waits for the current transaction to commit.
	 * @return {@code true} if it is stored only after the commit
	 */
	public boolean isPendingCommit() {
		return this.scheduled == null;
	}

	/**
	 * Whether the message was stored, when known: at once outside a transaction; after the commit inside one
	 * (cancelled on rollback, failed if the write after the commit fails).
	 * @return the outcome
	 */
	public CompletionStage<Boolean> outcome() {
		return this.outcome;
	}

	@Override
	public boolean equals(@Nullable Object other) {
		if (this == other) {
			return true;
		}
		if (!(other instanceof ScheduleResult result) || result.scheduled == null || this.scheduled == null) {
			return false;
		}
		return this.id.equals(result.id) && this.scheduled.equals(result.scheduled);
	}

	@Override
	public int hashCode() {
		return Objects.hash(this.id, this.scheduled);
	}

	@Override
	public String toString() {
		return "ScheduleResult[id=" + this.id + ", "
				+ ((this.scheduled != null) ? "scheduled=" + this.scheduled : "pending commit") + "]";
	}

}
