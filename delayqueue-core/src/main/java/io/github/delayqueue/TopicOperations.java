package io.github.delayqueue;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * A topic's counts, messages and dead letters, read and changed at once (never through a transaction): the part of
 * the operators' {@link DelayedQueueAdmin} that works on one topic's messages. The application's {@link DelayedQueue}
 * does not extend it: of these, a producer has {@link DelayedQueue#lookup(String, String)}.
 *
 * @since 1.0.0
 */
public interface TopicOperations {

	/**
	 * Counts a topic's messages by state, in one consistent read.
	 * @param topic the topic
	 * @return the counts
	 */
	TopicStats stats(String topic);

	/**
	 * Lists a topic's dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit how many to return at most (1 to 1000)
	 * @return the dead letters
	 */
	List<DeadLetter> deadLetters(String topic, int offset, int limit);

	/**
	 * Makes a dead letter due again at once, with its attempts reset.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is now waiting
	 */
	boolean replayDeadLetter(String topic, String id);

	/**
	 * Makes every dead letter of a topic due again at once, with their attempts reset: those that died before the
	 * call began, in chunks of at most 100 per partition (one script call each, atomic), so that no call holds
	 * Redis for long however many are dead. Meanwhile an observer sees the dead letters leave and the waiting
	 * messages grow a chunk at a time, and consumers deliver the first chunks while the later ones are still dead; a
	 * message that dies again meanwhile stays dead (the call ends). Interrupted, what it did not reach stays dead and
	 * a second call replays it; beside another replay or purge, each dead letter is replayed or deleted once.
	 * @param topic the topic
	 * @return how many were replayed
	 */
	long replayDeadLetters(String topic);

	/**
	 * Deletes one dead letter.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is gone
	 */
	boolean purgeDeadLetter(String topic, String id);

	/**
	 * Deletes every dead letter of a topic: those that died before the call began, in chunks of at most 100 per
	 * partition (one script call each, atomic), so that no call holds Redis for long however many are dead.
	 * Meanwhile an observer sees the dead letters shrink a chunk at a time. Interrupted, what it did not reach stays
	 * and a second call deletes it; beside another purge or replay, each dead letter is deleted or replayed once.
	 * @param topic the topic
	 * @return how many were deleted
	 */
	long purgeDeadLetters(String topic);

	/**
	 * Finds one message by id, in whatever state it is: waiting, retrying, in flight or dead. One script call on the
	 * message's partition.
	 * @param topic the topic
	 * @param id the message id
	 * @return the message, or empty if the topic holds none with that id (never scheduled, delivered, cancelled,
	 * purged or expired and dropped)
	 * @throws UnsupportedOperationException if this implementation predates it (a default method, so that an
	 * application's own implementation written for 0.2 still compiles)
	 * @since 1.0.0
	 */
	default Optional<MessageInfo> lookup(String topic, String id) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement lookup");
	}

	/**
	 * Lists a topic's waiting messages (scheduled or waiting for a retry) by due time, then id, a page at a time:
	 * only the page is read, however many wait; a topic of several partitions merges a page from each.
	 * @param topic the topic
	 * @param query the page size, the due times listed and the previous page's cursor
	 * @return the page, and the next page's cursor
	 * @throws IllegalArgumentException if the cursor is not one a listing returned
	 * @throws UnsupportedOperationException if this implementation predates it
	 * @since 1.0.0
	 */
	default MessagePage listWaiting(String topic, WaitingQuery query) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement listWaiting");
	}

	/**
	 * Counts a topic's waiting messages (scheduled or waiting for a retry) exactly by when they fall due, in equal
	 * consecutive windows from {@code from} to {@code to}, and those due before and after them: one script call per
	 * partition, one {@code ZCOUNT} per window (O(log n) each), no message read however many wait. A message due
	 * exactly on an edge is counted once, in the window that starts there.
	 * @param topic the topic
	 * @param from the start of the first window
	 * @param to the end of the last window, after {@code from}
	 * @param windows how many windows, 1 to {@value DueHistogram#MAX_WINDOWS}, each at least a microsecond long
	 * @return the counts
	 * @throws IllegalArgumentException if the topic, the times or the number of windows is invalid
	 * @throws UnsupportedOperationException if this implementation predates it
	 * @since 1.0.0
	 */
	default DueHistogram countDue(String topic, Instant from, Instant to, int windows) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement countDue");
	}

}
