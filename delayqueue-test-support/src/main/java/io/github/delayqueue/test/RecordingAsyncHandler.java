package io.github.delayqueue.test;

import java.lang.reflect.InvocationTargetException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.AsyncDelayedMessageHandler;
import org.jspecify.annotations.Nullable;

/**
 * Starts an asynchronous listener's work and records the call with a {@link ListenerRecorder} when the work
 * completes, without waiting for it: the container still holds no thread while the work runs, and its in-flight
 * bound still applies. The work's outcome (a value, a failure, a cancellation) is recorded before the container can
 * see it, so the container's report, made later on one of its own threads, always finds the call finished. When the
 * container cancels the work (its handler timeout, a stop), the listener's own stage is cancelled too.
 * <p>
 * What the listener throws before its work exists, or a {@code null} in its place, is reported by the container on
 * the starting thread at once, as for a blocking listener.
 *
 * @param <T> the payload type
 */
final class RecordingAsyncHandler<T> implements AsyncDelayedMessageHandler<T> {

	private final ListenerRecorder recorder;

	private final AsyncDelayedMessageHandler<T> delegate;

	RecordingAsyncHandler(ListenerRecorder recorder, AsyncDelayedMessageHandler<T> delegate) {
		this.recorder = recorder;
		this.delegate = delegate;
	}

	@Override
	public CompletionStage<?> handleAsync(T payload, DeliveredMessage message) throws Exception {
		RecordedCall call = this.recorder.started(message, payload, true);
		CompletionStage<?> work;
		try {
			work = this.delegate.handleAsync(payload, message);
		}
		catch (Exception | Error ex) {
			this.recorder.finishedOnThisThread(call, ex);
			throw ex;
		}
		if (work == null) {
			// the container fails the delivery with its own exception, on this thread
			this.recorder.finishedOnThisThread(call, new IllegalStateException("The listener returned null"));
			return null;
		}
		Seen seen = new Seen(call, work);
		work.whenComplete(seen::completed);
		return seen;
	}

	/** What the work failed with, without the wrappers a dependent stage adds (the container unwraps them too). */
	private static Throwable cause(Throwable failure) {
		Throwable current = failure;
		while ((current instanceof CompletionException || current instanceof ExecutionException
				|| current instanceof InvocationTargetException)
				&& current.getCause() != null) {
			current = current.getCause();
		}
		return current;
	}

	/**
	 * The listener's work as the container sees it: completes once the call has recorded the work's outcome; a
	 * cancellation (the container's handler timeout, a stop) is recorded before anyone can see it, and cancels the
	 * listener's work.
	 */
	private static final class Seen extends CompletableFuture<Object> {

		private final RecordedCall call;

		private final CompletionStage<?> work;

		Seen(RecordedCall call, CompletionStage<?> work) {
			this.call = call;
			this.work = work;
		}

		/** The listener's work completed: recorded first, then seen by the container. */
		synchronized void completed(@Nullable Object value, @Nullable Throwable failure) {
			if (isDone()) {
				return;
			}
			this.call.finished((failure != null) ? cause(failure) : null);
			if (failure != null) {
				completeExceptionally(failure);
			}
			else {
				complete(value);
			}
		}

		@Override
		public synchronized boolean cancel(boolean mayInterruptIfRunning) {
			if (isDone()) {
				return isCancelled();
			}
			CancellationException cancelled = new CancellationException("Cancelled by the container");
			this.call.finished(cancelled);
			completeExceptionally(cancelled);
			this.work.toCompletableFuture().cancel(mayInterruptIfRunning);
			return true;
		}

	}

	@Override
	public String toString() {
		return this.delegate.toString();
	}

}
