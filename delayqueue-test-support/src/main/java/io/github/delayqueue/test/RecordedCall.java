package io.github.delayqueue.test;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;

/**
 * One listener call, as a {@link ListenerRecorder} follows it: running, finished (a blocking listener returned or
 * threw, an asynchronous listener's work completed) with its outcome not reported yet, reported, or abandoned
 * unreported.
 */
final class RecordedCall {

	private final String topic;

	private final DeliveredMessage message;

	private final @Nullable Object payload;

	private final boolean async;

	/** What the work failed with, as the listener's stage gave it: what the container's report is matched by. */
	private @Nullable Throwable completion;

	private @Nullable Throwable failure;

	private DelayQueueMonitor.@Nullable Outcome outcome;

	private boolean finished;

	private boolean settled;

	RecordedCall(DeliveredMessage message, @Nullable Object payload, boolean async) {
		this.topic = message.topic();
		this.message = message;
		this.payload = payload;
		this.async = async;
	}

	String topic() {
		return this.topic;
	}

	String id() {
		return this.message.id();
	}

	boolean isAsync() {
		return this.async;
	}

	/** The listener returned or threw, or its work completed; whether the outcome is still to be reported. */
	synchronized boolean finished(@Nullable Throwable failure) {
		if (!this.finished) {
			this.finished = true;
			this.completion = failure;
			if (this.failure == null) {
				this.failure = failure;
			}
		}
		return !this.settled;
	}

	synchronized void report(DelayQueueMonitor.Outcome outcome, @Nullable Throwable exception) {
		this.outcome = outcome;
		if (exception != null) {
			this.failure = exception;
		}
		this.settled = true;
	}

	synchronized void abandon() {
		this.settled = true;
	}

	synchronized boolean hasFailed() {
		return this.failure != null;
	}

	synchronized boolean isRunning() {
		return !this.finished;
	}

	synchronized boolean hasFinished() {
		return this.finished;
	}

	synchronized boolean isSettled() {
		return this.finished && this.settled;
	}

	/**
	 * Whether this is the finished, unreported asynchronous call a container's report is about: its work failed
	 * with the reported exception (or the cause the container wrapped it around, as for a cancellation), or both
	 * succeeded.
	 */
	synchronized boolean awaitsReport(@Nullable Throwable exception) {
		if (!this.async || !this.finished || this.settled) {
			return false;
		}
		if (exception == null) {
			return this.completion == null;
		}
		return this.completion != null && (this.completion == exception || this.completion == exception.getCause());
	}

	synchronized ReceivedMessage received() {
		return new ReceivedMessage(this.message, this.payload, this.failure, this.outcome);
	}

	@Override
	public synchronized String toString() {
		String state;
		if (this.async) {
			state = this.finished ? "its listener's work completed, its outcome not reported yet"
					: "its listener's work has not completed";
		}
		else {
			state = this.finished ? "its listener returned, its outcome not reported yet" : "its listener runs";
		}
		return "message '" + this.message.id() + "' (attempt " + this.message.attempt() + "): " + state;
	}

}
