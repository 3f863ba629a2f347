package io.github.delayqueue.test;

import java.util.concurrent.CancellationException;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.HandlerTimeoutException;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.jspecify.annotations.Nullable;

/**
 * One call of a listener, as a {@link ListenerRecorder} saw it: the message, the payload the listener was given,
 * what it threw (or what its work failed with), and what became of the message. A listener whose work completes
 * later (a {@code CompletableFuture} or a {@code Mono}, an {@code AsyncDelayedMessageHandler}) is recorded once its
 * work has completed: succeeded, failed, cancelled, or cancelled by the handler timeout.
 *
 * @param message the message as the listener saw it: id, topic, due time, attempt, headers
 * @param payload the payload, read as the listener's payload type
 * @param failure what the listener threw, or {@code null} if it returned; for a listener whose work completes later,
 * what the work failed with (a {@link CancellationException} if it was cancelled, a {@link HandlerTimeoutException}
 * if the handler timeout cancelled it), or what the listener threw before its work existed
 * @param outcome what became of the message: acknowledged ({@code SUCCESS}), to be retried ({@code RETRY}), dealt with
 * by the listener's error handler ({@code RECOVERED}) or dead ({@code DEAD}); {@code null} until the container has
 * reported it (it has, for every call of the topic's listeners, once {@link DelayQueueTester#awaitIdle(String)}
 * returned), and for good if it never does (a call whose lease was lost while it ran)
 * @since 1.0.0
 */
public record ReceivedMessage(DeliveredMessage message, @Nullable Object payload, @Nullable Throwable failure,
		DelayQueueMonitor.@Nullable Outcome outcome) {

	/**
	 * The topic.
	 * @return the topic
	 */
	public String topic() {
		return this.message.topic();
	}

	/**
	 * The message id.
	 * @return the id
	 */
	public String id() {
		return this.message.id();
	}

	/**
	 * The delivery attempt, from 1.
	 * @return the attempt
	 */
	public int attempt() {
		return this.message.attempt();
	}

	/**
	 * Whether the listener returned normally (and its work, if it completes later, completed normally).
	 * @return {@code true} if it threw nothing and its work did not fail
	 */
	public boolean succeeded() {
		return this.failure == null;
	}

	/**
	 * Whether the listener's work was cancelled (by the listener, or by a stop that did not wait for it), the
	 * handler timeout aside.
	 * @return {@code true} if its failure is a cancellation
	 * @since 1.0.0
	 */
	public boolean cancelled() {
		return this.failure instanceof CancellationException;
	}

	/**
	 * Whether the listener ran (or its work was still running) past the listener's handler timeout.
	 * @return {@code true} if its failure is the handler timeout
	 * @since 1.0.0
	 */
	public boolean timedOut() {
		return this.failure instanceof HandlerTimeoutException;
	}

	/**
	 * The payload as a type.
	 * @param <T> the type
	 * @param type the type the listener received it as (or a supertype)
	 * @return the payload
	 * @throws ClassCastException if it is of another type
	 * @throws IllegalStateException if there is none
	 */
	public <T> T payload(Class<T> type) {
		if (this.payload == null) {
			throw new IllegalStateException("Message '" + id() + "' of topic '" + topic() + "' had no payload");
		}
		return type.cast(this.payload);
	}

}
