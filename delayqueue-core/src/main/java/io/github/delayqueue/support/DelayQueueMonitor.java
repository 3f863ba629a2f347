package io.github.delayqueue.support;

import org.jspecify.annotations.Nullable;

/**
 * Callbacks on what happens to messages, for metrics. Called on the threads doing the work, so implementations
 * must be quick and must not throw. Every method does nothing by default.
 *
 * @since 0.1.0
 */
public interface DelayQueueMonitor {

	/** A monitor that records nothing. */
	DelayQueueMonitor NONE = new DelayQueueMonitor() {
	};

	/**
	 * Messages were stored by a schedule call.
	 * @param topic the topic
	 * @param count how many were stored (existing ids not counted)
	 */
	default void scheduled(String topic, int count) {
	}

	/**
	 * Writes held for a transaction failed after it committed (Redis unreachable at that moment, for instance):
	 * the database changes stand, the queue changes did not happen.
	 * @param topic the topic
	 * @param operation {@code schedule}, {@code cancel} or {@code reschedule}
	 * @param count how many messages
	 */
	default void afterCommitFailed(String topic, String operation, int count) {
	}

	/**
	 * A waiting message was cancelled.
	 * @param topic the topic
	 */
	default void cancelled(String topic) {
	}

	/**
	 * A handler is about to run for a claimed message.
	 * @param topic the topic
	 * @param latenessMillis how long after its due time the handler starts, on the Redis clock
	 */
	default void dispatched(String topic, long latenessMillis) {
	}

	/**
	 * Messages went to the dead letters without a handler finishing: handlers kept starting and never finishing
	 * (their consumers crashed or stalled past the lease) until their attempts were used up.
	 * @param topic the topic
	 * @param count how many
	 */
	default void expired(String topic, int count) {
	}

	/**
	 * Due messages were not delivered because their expiry deadline had passed: they went to the dead letters or
	 * were dropped, as each said.
	 * @param topic the topic
	 * @param count how many
	 * @since 1.0.0
	 */
	default void pastDeadline(String topic, int count) {
	}

	/**
	 * A handler ran beyond the listener's handler timeout: its lease was released for another attempt (the attempt
	 * counted) and its thread interrupted.
	 * @param topic the topic
	 * @since 1.0.0
	 */
	default void handlerTimedOut(String topic) {
	}

	/**
	 * A handler finished.
	 * @param topic the topic
	 * @param outcome what became of the message
	 * @param durationNanos how long the handler ran
	 * @param exception the exception it threw, or {@code null}
	 */
	default void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception) {
	}

	/**
	 * A handler finished; the container calls this one. By default it calls
	 * {@link #handled(String, Outcome, long, Throwable)}.
	 * @param topic the topic
	 * @param outcome what became of the message
	 * @param durationNanos how long the handler ran
	 * @param exception the exception it threw, or {@code null}
	 * @param observed whether the handler call ran in an observation (which a meter observation handler times
	 * already: a monitor that records handler time may leave it to the observation, so that it is recorded once)
	 */
	default void handled(String topic, Outcome outcome, long durationNanos, @Nullable Throwable exception,
			boolean observed) {
		handled(topic, outcome, durationNanos, exception);
	}

	/**
	 * A message's handler is about to start; the container calls this one. By default it calls
	 * {@link #dispatched(String, long)}.
	 * @param topic the topic
	 * @param group the message's group key, or {@code null} for a message without a group
	 * @param latenessMillis how late the handler starts, in milliseconds
	 * @since 1.0.0
	 */
	default void dispatched(String topic, @Nullable String group, long latenessMillis) {
		dispatched(topic, latenessMillis);
	}

	/**
	 * A handler finished; the container calls this one. By default it calls
	 * {@link #handled(String, Outcome, long, Throwable, boolean)}.
	 * @param topic the topic
	 * @param group the message's group key, or {@code null} for a message without a group
	 * @param outcome what became of the message
	 * @param durationNanos how long the handler ran
	 * @param exception the exception it threw, or {@code null}
	 * @param observed whether the handler call ran in an observation
	 * @since 1.0.0
	 */
	default void handled(String topic, @Nullable String group, Outcome outcome, long durationNanos,
			@Nullable Throwable exception, boolean observed) {
		handled(topic, outcome, durationNanos, exception, observed);
	}

	/** What became of a handled message. */
	enum Outcome {

		/** The handler returned; the message is acknowledged. */
		SUCCESS,

		/** The handler threw; the message is retried after a backoff. */
		RETRY,

		/** The handler threw; the listener's error handler dealt with it, and the message is acknowledged. */
		RECOVERED,

		/** The handler threw for the last time, or the message could not be read: it is dead. */
		DEAD

	}

}
