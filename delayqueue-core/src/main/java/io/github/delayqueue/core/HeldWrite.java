package io.github.delayqueue.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

import io.github.delayqueue.PartialScheduleException;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.redis.NewMessage;

/**
 * One write held for the commit of a transaction ({@code TransactionalWrites}): run once it has committed, or
 * dropped; it completes its outcomes either way, and reports a failure after the commit.
 */
interface HeldWrite {

	void run();

	/** Its transaction rolled back, or the write was made after a savepoint rolled back to. */
	void rolledBack();

	/** Whether its transaction committed is not known. */
	void unknown(RuntimeException ex);

	/** Messages to store, with one outcome each. */
	final class Schedules implements HeldWrite {

		private final List<ScheduleRequest> requests;

		private final List<NewMessage> messages;

		private final List<CompletableFuture<Boolean>> outcomes;

		private final Target target;

		private final AfterCommitFailures failures;

		Schedules(List<ScheduleRequest> requests, List<NewMessage> messages, List<CompletableFuture<Boolean>> outcomes,
				Target target, AfterCommitFailures failures) {
			this.requests = requests;
			this.messages = messages;
			this.outcomes = outcomes;
			this.target = target;
			this.failures = failures;
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
				results = this.target.store(this.requests, this.messages);
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
			AfterCommitFailures.idsByTopic(this.requests, this.messages, failed)
				.forEach((topic, ids) -> this.failures.failed("schedule", topic, ids, ex));
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
	final class Change<T> implements HeldWrite {

		private final String operation;

		private final String topic;

		private final String id;

		private final Supplier<T> change;

		private final CompletableFuture<T> outcome;

		private final AfterCommitFailures failures;

		Change(String operation, String topic, String id, Supplier<T> change, CompletableFuture<T> outcome,
				AfterCommitFailures failures) {
			this.operation = operation;
			this.topic = topic;
			this.id = id;
			this.change = change;
			this.outcome = outcome;
			this.failures = failures;
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
			this.failures.failed(this.operation, this.topic, List.of(this.id), ex);
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

}
