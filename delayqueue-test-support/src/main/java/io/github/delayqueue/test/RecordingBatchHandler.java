package io.github.delayqueue.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.AsyncDelayedBatchHandler;
import io.github.delayqueue.listener.BatchListenerFailedException;
import io.github.delayqueue.listener.DelayedBatchHandler;
import org.jspecify.annotations.Nullable;

/**
 * Runs a batch listener and records each message of each call with a {@link ListenerRecorder}, as the container
 * settles them: with no failure if the call succeeded; if it threw a {@link BatchListenerFailedException}, the
 * messages before the one it names as successes, that one with the exception's cause, and the ones after it
 * abandoned (they go back unhandled, and their next delivery is a call of its own); with the call's failure otherwise.
 *
 * @param <T> the payload type
 */
class RecordingBatchHandler<T> implements DelayedBatchHandler<T> {

	private final ListenerRecorder recorder;

	private final DelayedBatchHandler<T> delegate;

	RecordingBatchHandler(ListenerRecorder recorder, DelayedBatchHandler<T> delegate) {
		this.recorder = recorder;
		this.delegate = delegate;
	}

	/**
	 * A recording handler for a batch listener.
	 * @param recorder the recorder
	 * @param handler the batch listener
	 * @param <T> the payload type
	 * @return the recording handler, asynchronous if the listener is
	 */
	static <T> DelayedBatchHandler<T> of(ListenerRecorder recorder, DelayedBatchHandler<T> handler) {
		return (handler instanceof AsyncDelayedBatchHandler<T> async) ? new Async<>(recorder, async)
				: new RecordingBatchHandler<>(recorder, handler);
	}

	@Override
	public void handleBatch(List<T> payloads, List<DeliveredMessage> messages) throws Exception {
		List<RecordedCall> calls = started(this.recorder, payloads, messages, false);
		Throwable failure = null;
		try {
			this.delegate.handleBatch(payloads, messages);
		}
		catch (Exception | Error ex) {
			failure = ex;
			throw ex;
		}
		finally {
			finish(calls, messages, failure, true);
		}
	}

	private static <T> List<RecordedCall> started(ListenerRecorder recorder, List<T> payloads,
			List<DeliveredMessage> messages, boolean async) {
		List<RecordedCall> calls = new ArrayList<>(messages.size());
		for (int i = 0; i < messages.size(); i++) {
			calls.add(recorder.started(messages.get(i), payloads.get(i), async));
		}
		return calls;
	}

	/** Finishes each message's call with what the container makes of the batch's outcome. */
	void finish(List<RecordedCall> calls, List<DeliveredMessage> messages, @Nullable Throwable failure,
			boolean onThisThread) {
		int named = named(failure, messages);
		for (int i = 0; i < calls.size(); i++) {
			RecordedCall call = calls.get(i);
			Throwable own = failure;
			if (named >= 0) {
				own = (i < named) ? null : (i == named) ? causeOf(failure) : null;
			}
			if (named >= 0 && i > named) {
				call.finished(null);
				call.abandon();
			}
			else if (onThisThread) {
				this.recorder.finishedOnThisThread(call, own);
			}
			else {
				call.finished(own);
			}
		}
	}

	private static Throwable causeOf(Throwable failure) {
		return (failure.getCause() != null) ? failure.getCause() : failure;
	}

	/** The index of the message a {@link BatchListenerFailedException} names, as the container finds it; else -1. */
	private static int named(@Nullable Throwable failure, List<DeliveredMessage> messages) {
		return (failure instanceof BatchListenerFailedException exception) ? exception.indexIn(messages) : -1;
	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

	/** The same for a batch listener whose work completes later: each call finishes as the work completes. */
	private static final class Async<T> extends RecordingBatchHandler<T> implements AsyncDelayedBatchHandler<T> {

		private final ListenerRecorder recorder;

		private final AsyncDelayedBatchHandler<T> delegate;

		Async(ListenerRecorder recorder, AsyncDelayedBatchHandler<T> delegate) {
			super(recorder, delegate);
			this.recorder = recorder;
			this.delegate = delegate;
		}

		@Override
		public CompletionStage<?> handleBatchAsync(List<T> payloads, List<DeliveredMessage> messages)
				throws Exception {
			List<RecordedCall> calls = started(this.recorder, payloads, messages, true);
			CompletionStage<?> work;
			try {
				work = this.delegate.handleBatchAsync(payloads, messages);
			}
			catch (Exception | Error ex) {
				finish(calls, messages, ex, true);
				throw ex;
			}
			if (work == null) {
				finish(calls, messages, new IllegalStateException("The listener returned null"), true);
				return null;
			}
			CompletableFuture<?> listenerWork = work.toCompletableFuture();
			// recorded before the container sees it; a cancellation (a timeout, a stop) cancels the listener's work
			CompletableFuture<Object> seen = new CompletableFuture<>() {

				@Override
				public boolean cancel(boolean mayInterruptIfRunning) {
					listenerWork.cancel(mayInterruptIfRunning);
					return super.cancel(mayInterruptIfRunning);
				}

			};
			listenerWork.whenComplete((value, failure) -> {
				Throwable cause = (failure != null) ? unwrap(failure) : null;
				finish(calls, messages, cause, false);
				if (cause != null) {
					seen.completeExceptionally(cause);
				}
				else {
					seen.complete(value);
				}
			});
			return seen;
		}

		@Override
		public void handleBatch(List<T> payloads, List<DeliveredMessage> messages) throws Exception {
			AsyncDelayedBatchHandler.super.handleBatch(payloads, messages);
		}

		private static Throwable unwrap(Throwable failure) {
			Throwable current = failure;
			while ((current instanceof CompletionException || current instanceof ExecutionException)
					&& current.getCause() != null) {
				current = current.getCause();
			}
			return current;
		}

	}

}
