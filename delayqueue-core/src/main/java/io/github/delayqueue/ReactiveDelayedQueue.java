package io.github.delayqueue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletionStage;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The {@link DelayedQueue}'s producer operations as Reactor publishers, for WebFlux and other reactive applications:
 * nothing blocks, and nothing happens until a publisher is subscribed to (each subscription makes the call again,
 * so {@code retry()} retries it). Spring Boot declares one when Reactor is on the class path and the application
 * has a {@code ReactiveRedisConnectionFactory} (Lettuce's).
 * <p>
 * <b>The same promises.</b> A {@code Mono} that emitted means Redis stored the change; when Redis cannot be reached it
 * signals a {@link org.springframework.dao.DataAccessException}: it never pretends. Calls made while others are in
 * flight go to Redis together, as {@link AsyncDelayedQueue}'s do.
 * <p>
 * <b>Bad input is an error signal.</b> Following Reactor's convention that a publisher reports what goes wrong as a
 * signal, arguments are validated and the payload serialised when the publisher is subscribed to, and bad input
 * signals the same {@link IllegalArgumentException} (or subclass) the blocking method throws, before anything is
 * written. (A {@code null} argument where none is allowed is signalled the same way.)
 * <p>
 * <b>Transactions.</b> Inside a reactive transaction ({@code TransactionalOperator}, {@code @Transactional} on a
 * method returning a publisher, an R2DBC transaction manager) the changes follow the commit, as the blocking API's
 * follow a {@code PlatformTransactionManager}'s: validated at once, written after the commit (the transaction's
 * publisher completes once they are written), dropped on rollback. There {@link #schedule(ScheduleRequest)} and
 * {@link #scheduleAll(List)} emit results pending the commit, the {@code *AfterCommit} methods emit the stage that
 * completes after it, and the methods whose result cannot be known before the commit signal an
 * {@link IllegalStateException}. A change that fails after the commit is logged, counted and published as an
 * {@link io.github.delayqueue.core.AfterCommitFailedEvent}, as in blocking transactions.
 *
 * @see DelayedQueue
 * @see AsyncDelayedQueue
 * @since 1.0.0
 */
public interface ReactiveDelayedQueue {

	/**
	 * Schedules a message with a generated id.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return the generated id, once stored (inside a transaction: once held for the commit)
	 */
	Mono<String> schedule(String topic, Object payload, Duration delay);

	/**
	 * Schedules a message with a generated id for an instant on the Redis server's clock.
	 * @param topic the topic (see {@link Topics})
	 * @param payload the payload, serialised as JSON
	 * @param dueAt when the message is due; an instant in the past makes it due at once
	 * @return the generated id, once stored (inside a transaction: once held for the commit)
	 */
	Mono<String> scheduleAt(String topic, Object payload, Instant dueAt);

	/**
	 * Schedules a message with the caller's id, unless a message with that id exists in the topic; signals an
	 * {@link IllegalStateException} inside a transaction the queue follows.
	 * @param topic the topic (see {@link Topics})
	 * @param id the message id
	 * @param payload the payload, serialised as JSON
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return {@code true} if the message was stored, {@code false} if a message with this id exists
	 */
	Mono<Boolean> schedule(String topic, String id, Object payload, Duration delay);

	/**
	 * Schedules one message described in full.
	 * @param request the message
	 * @return what happened to it, once stored (inside a transaction: pending the commit)
	 */
	Mono<ScheduleResult> schedule(ScheduleRequest request);

	/**
	 * Schedules many messages; all are validated first, and one bad request signals its error with nothing
	 * written. See {@link AsyncDelayedQueue#scheduleAll(List)} for how a failure part way is reported.
	 * @param requests the messages
	 * @return one result per request, in order, emitted once all were stored
	 */
	Flux<ScheduleResult> scheduleAll(List<ScheduleRequest> requests);

	/**
	 * Cancels a waiting message; signals an {@link IllegalStateException} inside a transaction the queue follows.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was waiting and is gone
	 */
	Mono<Boolean> cancel(String topic, String id);

	/**
	 * Moves the due time of a waiting message; signals an {@link IllegalStateException} inside a transaction the
	 * queue follows.
	 * @param topic the topic
	 * @param id the message id
	 * @param delay how long from now (on the Redis clock) the message is due; zero or more
	 * @return {@code true} if it was waiting and has moved
	 */
	Mono<Boolean> reschedule(String topic, String id, Duration delay);

	/**
	 * Cancels a waiting message when the current transaction commits, or at once outside one.
	 * @param topic the topic
	 * @param id the message id
	 * @return once held for the commit (or done, outside a transaction): the stage that completes with what
	 * {@link #cancel} emits once it ran, cancelled on rollback
	 */
	Mono<CompletionStage<Boolean>> cancelAfterCommit(String topic, String id);

	/**
	 * Moves the due time of a waiting message when the current transaction commits, or at once outside one.
	 * @param topic the topic
	 * @param id the message id
	 * @param delay how long from then (on the Redis clock) the message is due; zero or more
	 * @return once held for the commit (or done, outside a transaction): the stage that completes with what
	 * {@link #reschedule} emits once it ran, cancelled on rollback
	 */
	Mono<CompletionStage<Boolean>> rescheduleAfterCommit(String topic, String id, Duration delay);

	/**
	 * Schedules a message with its own id, or replaces the waiting message with that id (see
	 * {@link DelayedQueue#scheduleOrReplace(ScheduleRequest)}); signals an {@link IllegalStateException} inside a
	 * transaction the queue follows.
	 * @param request the message; it must carry an id
	 * @return what happened
	 */
	Mono<ReplaceResult> scheduleOrReplace(ScheduleRequest request);

	/**
	 * {@link #scheduleOrReplace(ScheduleRequest)} after the current transaction commits (at once outside one).
	 * @param request the message; it must carry an id
	 * @return once held for the commit (or done, outside a transaction): the stage that completes with what happened,
	 * cancelled on rollback
	 */
	Mono<CompletionStage<ReplaceResult>> scheduleOrReplaceAfterCommit(ScheduleRequest request);

	/**
	 * Finds one of the topic's messages by id, in whatever state it is (never through a transaction).
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or empty (a {@code Mono} that completes without a value) if the topic holds none
	 */
	Mono<MessageInfo> lookup(String topic, String id);

}
