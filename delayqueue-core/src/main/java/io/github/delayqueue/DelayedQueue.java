package io.github.delayqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A durable delayed queue: a message scheduled for a topic is delivered to that topic's listener once its due
 * time has passed on the Redis server's clock, at least once, and never before.
 * <p>
 * Every method validates its arguments before anything is written and throws an
 * {@link IllegalArgumentException} (or a subclass such as {@link InvalidTopicException} or
 * {@link PayloadTooLargeException}) for bad input. A method that returns has had its effect stored by Redis;
 * when Redis cannot be reached it throws a {@link org.springframework.dao.DataAccessException} instead.
 * <p>
 * An id names one message while it exists in its topic (waiting, in flight or dead). Scheduling an id that
 * exists keeps the first message's payload and due time. Once the message is gone (acknowledged, cancelled or
 * purged) the id can be used again.
 * <p>
 * <b>Transactions.</b> Inside a Spring-managed transaction, an implementation may hold its changes until the commit
 * ({@code RedisDelayedQueue} does, by default): validated at once, written after the commit, dropped on rollback.
 * Then {@link #schedule(ScheduleRequest)} and {@link #scheduleAll(List)} return results pending the commit
 * ({@link ScheduleResult#outcome()}), {@link #cancelAfterCommit} and {@link #rescheduleAfterCommit} outcomes that
 * complete after it, and the methods whose {@code boolean} result cannot be known before the commit
 * ({@link #schedule(String, String, Object, Duration)}, {@link #cancel}, {@link #reschedule}) throw an
 * {@link IllegalStateException} rather than guess.
 * <p>
 * <b>Producer and operator.</b> This is the producer's side, as {@code KafkaTemplate} is Kafka's: it schedules,
 * cancels, reschedules and replaces messages, and looks up a message by id. What operators do with a topic (its
 * counts, listing it, its dead letters, pause and limits) is the {@link DelayedQueueAdmin}'s, a bean of its own, as
 * {@code KafkaAdmin} is.
 *
 * @see ScheduleRequest
 * @see DelayedQueueAdmin
 * @since 0.1.0
 */
public interface DelayedQueue {

	/**
	 * Schedules a message with a generated id.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return the generated id
	 */
	String schedule(String topic, Object payload, Duration delay);

	/**
	 * Schedules a message with a generated id for an instant on the Redis server's clock. An instant in the past
	 * makes the message due at once.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @param dueAt when the message is due
	 * @return the generated id
	 */
	String scheduleAt(String topic, Object payload, Instant dueAt);

	/**
	 * Schedules a message with the caller's id, unless a message with that id exists in the topic.
	 * @param topic the topic (see {@link Topics})
	 * @param id the message id (see {@link ScheduleRequest.Builder#id(String)})
	 * @param payload the payload, serialised as JSON
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return {@code true} if the message was stored, {@code false} if a message with this id exists (nothing
	 * changed)
	 */
	boolean schedule(String topic, String id, Object payload, Duration delay);

	/**
	 * Schedules one message described in full (id, headers, due time).
	 * @param request the message
	 * @return what happened to it
	 */
	ScheduleResult schedule(ScheduleRequest request);

	/**
	 * Schedules many messages with few round trips. All requests are validated first: one bad request fails the
	 * call and nothing is written. The messages of one topic are written in atomic chunks of up to a thousand. If
	 * Redis fails part way through a call of more than one chunk, a {@link PartialScheduleException} says request
	 * by request what was stored, and the chunks already written stay; a call of one chunk throws Redis's exception
	 * (its outcome is unknown: scheduling it again with the same ids is safe).
	 * @param requests the messages
	 * @return one result per request, in order
	 * @throws PartialScheduleException if Redis failed after or during the first of several chunks
	 */
	List<ScheduleResult> scheduleAll(List<ScheduleRequest> requests);

	/**
	 * Cancels a waiting message (scheduled or waiting for a retry).
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was waiting and is gone; {@code false} if no such message was waiting (unknown,
	 * already claimed for delivery, dead, or gone)
	 */
	boolean cancel(String topic, String id);

	/**
	 * Moves the due time of a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return {@code true} if it was waiting and is now due after {@code delay}; {@code false} if no such message
	 * was waiting
	 */
	boolean reschedule(String topic, String id, Duration delay);

	/**
	 * Cancels a waiting message when the current transaction commits (nothing on rollback), or at once outside a
	 * transaction.
	 * @param topic the topic
	 * @param id the message id
	 * @return completes with what {@link #cancel(String, String)} returns, once it ran; cancelled if the transaction
	 * rolls back
	 */
	default CompletionStage<Boolean> cancelAfterCommit(String topic, String id) {
		return CompletableFuture.completedStage(cancel(topic, id));
	}

	/**
	 * Moves the due time of a waiting message when the current transaction commits (nothing on rollback), or at
	 * once outside a transaction; the delay counts from the moment it runs.
	 * @param topic the topic
	 * @param id the message id
	 * @param delay how long from then (on the Redis clock) the message is due; zero or more
	 * @return completes with what {@link #reschedule(String, String, Duration)} returns, once it ran; cancelled if
	 * the transaction rolls back
	 */
	default CompletionStage<Boolean> rescheduleAfterCommit(String topic, String id, Duration delay) {
		return CompletableFuture.completedStage(reschedule(topic, id, delay));
	}

	/**
	 * Schedules a message with its own id, or replaces the waiting message with that id (debounce, upsert): one
	 * atomic script. A waiting message (scheduled, or waiting for a retry) gets the request's payload, headers, due
	 * time and expiry, and keeps its attempts; a message in flight or dead is left as it is, and the result says so.
	 * Inside a transaction use {@link #scheduleOrReplaceAfterCommit(ScheduleRequest)}.
	 * @param request the message; it must carry an id
	 * @return what happened
	 * @throws IllegalArgumentException if the request has no id
	 * @throws IllegalStateException inside a transaction the queue follows
	 * @throws UnsupportedOperationException if this implementation predates it (a default method, so that an
	 * application's own implementation written for 0.2 still compiles)
	 * @since 1.0.0
	 */
	default ReplaceResult scheduleOrReplace(ScheduleRequest request) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement scheduleOrReplace");
	}

	/**
	 * {@link #scheduleOrReplace(ScheduleRequest)} after the current transaction commits (at once outside one): the
	 * request is validated and prepared now, written after the commit, dropped on rollback.
	 * @param request the message; it must carry an id
	 * @return the result, complete once written
	 * @since 1.0.0
	 */
	default CompletionStage<ReplaceResult> scheduleOrReplaceAfterCommit(ScheduleRequest request) {
		return CompletableFuture.completedStage(scheduleOrReplace(request));
	}

	/**
	 * Finds one of the topic's messages by id, in whatever state it is: waiting, retrying, in flight or dead. One
	 * script call on the message's partition, read at once (never through a transaction). A producer uses it to see
	 * what became of a message it scheduled under its own id (an order's timeout, say).
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or empty if the topic holds none with that id (never scheduled, delivered, cancelled,
	 * purged or expired and dropped)
	 * @throws UnsupportedOperationException if this implementation predates it (a default method, so that an
	 * application's own implementation written for 0.2 still compiles)
	 * @see DelayedQueueAdmin#lookup(String, String)
	 * @since 1.0.0
	 */
	default Optional<MessageInfo> lookup(String topic, String id) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement lookup");
	}

	/**
	 * This queue's producer operations for callers that must not wait: each returns a {@code CompletableFuture} at
	 * once, with the same validation, errors and guarantees (see {@link AsyncDelayedQueue}).
	 * @return the asynchronous view of this queue
	 * @throws UnsupportedOperationException if this implementation predates it (a default method, so that an
	 * application's own implementation written for 0.2 still compiles)
	 * @throws IllegalStateException if the queue has no non-blocking Redis connection
	 * @since 1.0.0
	 */
	default AsyncDelayedQueue async() {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement async");
	}

}
