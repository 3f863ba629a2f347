package io.github.delayqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link DelayedQueue}'s producer operations for callers that must not wait: the same methods, each returning a
 * {@link CompletableFuture} at once, as {@code KafkaTemplate.send} does. No thread waits for Redis: the call is sent
 * through the client's non-blocking connection, and its future completes on the client's I/O thread (do not block in
 * its callbacks; move heavy work to your own executor with the {@code *Async} stages).
 * <p>
 * <b>The same promises.</b> A future that completed normally means Redis stored the change, exactly as the blocking
 * method returning does; when Redis cannot be reached, the future fails with a
 * {@link org.springframework.dao.DataAccessException}: it never pretends.
 * <p>
 * <b>Bad input throws, at the call.</b> Arguments are validated and the payload serialised before anything is sent,
 * as by the blocking methods: a bad topic, id or delay, a payload over the size limit or one that cannot be
 * serialised throws the same {@link IllegalArgumentException} (or subclass) from the call itself, and nothing is
 * written. This is {@code KafkaTemplate}'s convention too (serialisation fails the call); what the future reports is
 * what happened in Redis, or a state only Redis knows (a topic's partition count that differs from this
 * application's fails the future with an {@link IllegalStateException}).
 * <p>
 * <b>Pipelined and group-committed.</b> Calls do not wait for each other: many calls made while some are in flight
 * (from one thread or many) go to Redis together, the small schedules of one topic as one multi-message script call,
 * so a caller with many messages in flight pays a fraction of a round trip per message.
 * <p>
 * <b>Transactions.</b> Inside a Spring-managed transaction of the calling thread, each method behaves as its
 * blocking twin does (see {@link DelayedQueue}): {@link #schedule(ScheduleRequest)} and {@link #scheduleAll(List)}
 * complete at once with results pending the commit, the {@code *AfterCommit} methods complete after the commit
 * (cancelled on rollback), and the methods whose result cannot be known before the commit throw an
 * {@link IllegalStateException}. Never wait for an after-commit future inside its own transaction: it completes only
 * once the transaction has committed.
 *
 * @see DelayedQueue
 * @see ReactiveDelayedQueue
 * @since 1.0.0
 */
public interface AsyncDelayedQueue {

	/**
	 * Schedules a message with a generated id.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return the generated id, once stored
	 * @throws IllegalArgumentException for bad input (nothing is written)
	 */
	CompletableFuture<String> schedule(String topic, Object payload, Duration delay);

	/**
	 * Schedules a message with a generated id for an instant on the Redis server's clock.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @param dueAt when the message is due; an instant in the past makes it due at once
	 * @return the generated id, once stored
	 * @throws IllegalArgumentException for bad input (nothing is written)
	 */
	CompletableFuture<String> scheduleAt(String topic, Object payload, Instant dueAt);

	/**
	 * Schedules a message with the caller's id, unless a message with that id exists in the topic.
	 * @param topic the topic (see {@link Topics})
	 * @param id the message id
	 * @param payload the payload, serialised as JSON
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return {@code true} if the message was stored, {@code false} if a message with this id exists
	 * @throws IllegalArgumentException for bad input (nothing is written)
	 * @throws IllegalStateException inside a transaction the queue follows
	 */
	CompletableFuture<Boolean> schedule(String topic, String id, Object payload, Duration delay);

	/**
	 * Schedules one message described in full (id, headers, due time).
	 * @param request the message
	 * @return what happened to it, once stored (pending the commit inside a transaction)
	 * @throws IllegalArgumentException for bad input (nothing is written)
	 */
	CompletableFuture<ScheduleResult> schedule(ScheduleRequest request);

	/**
	 * Schedules many messages; all are validated first, and one bad request throws with nothing written. The
	 * messages of one topic are written in atomic chunks of up to a thousand; if Redis fails in some chunks of a call
	 * of several, the future fails with a {@link PartialScheduleException} saying request by request what was stored.
	 * @param requests the messages
	 * @return one result per request, in order
	 * @throws IllegalArgumentException for bad input (nothing is written)
	 */
	CompletableFuture<List<ScheduleResult>> scheduleAll(List<ScheduleRequest> requests);

	/**
	 * Cancels a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was waiting and is gone
	 * @throws IllegalArgumentException for bad input
	 * @throws IllegalStateException inside a transaction the queue follows (use {@link #cancelAfterCommit})
	 */
	CompletableFuture<Boolean> cancel(String topic, String id);

	/**
	 * Moves the due time of a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return {@code true} if it was waiting and has moved
	 * @throws IllegalArgumentException for bad input
	 * @throws IllegalStateException inside a transaction the queue follows (use {@link #rescheduleAfterCommit})
	 */
	CompletableFuture<Boolean> reschedule(String topic, String id, Duration delay);

	/**
	 * Cancels a waiting message when the current transaction commits, or at once outside one.
	 * @param topic the topic
	 * @param id the message id
	 * @return what {@link #cancel} completes with, once it ran; cancelled if the transaction rolls back
	 * @throws IllegalArgumentException for bad input
	 */
	CompletableFuture<Boolean> cancelAfterCommit(String topic, String id);

	/**
	 * Moves the due time of a waiting message when the current transaction commits, or at once outside one.
	 * @param topic the topic
	 * @param id the message id
	 * @param delay how long from then (on the Redis clock) the message is due; zero or more
	 * @return what {@link #reschedule} completes with, once it ran; cancelled if the transaction rolls back
	 * @throws IllegalArgumentException for bad input
	 */
	CompletableFuture<Boolean> rescheduleAfterCommit(String topic, String id, Duration delay);

	/**
	 * Schedules a message with its own id, or replaces the waiting message with that id (see
	 * {@link DelayedQueue#scheduleOrReplace(ScheduleRequest)}).
	 * @param request the message; it must carry an id
	 * @return what happened
	 * @throws IllegalArgumentException for bad input, or a request without an id
	 * @throws IllegalStateException inside a transaction the queue follows (use
	 * {@link #scheduleOrReplaceAfterCommit})
	 */
	CompletableFuture<ReplaceResult> scheduleOrReplace(ScheduleRequest request);

	/**
	 * {@link #scheduleOrReplace(ScheduleRequest)} after the current transaction commits (at once outside one).
	 * @param request the message; it must carry an id
	 * @return what happened, once written; cancelled if the transaction rolls back
	 * @throws IllegalArgumentException for bad input, or a request without an id
	 */
	CompletableFuture<ReplaceResult> scheduleOrReplaceAfterCommit(ScheduleRequest request);

	/**
	 * Finds one of the topic's messages by id, in whatever state it is (never through a transaction).
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or empty if the topic holds none with that id
	 * @throws IllegalArgumentException for bad input
	 */
	CompletableFuture<Optional<MessageInfo>> lookup(String topic, String id);

}
