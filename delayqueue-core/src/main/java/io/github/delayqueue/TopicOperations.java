package io.github.delayqueue;

import java.util.List;

/**
 * A topic's counts and its dead letters, read and changed at once: what the application's {@link DelayedQueue} and
 * the operators' {@link DelayedQueueAdmin} both offer.
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
	 * Makes every dead letter of a topic due again at once, with their attempts reset.
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
	 * Deletes every dead letter of a topic.
	 * @param topic the topic
	 * @return how many were deleted
	 */
	long purgeDeadLetters(String topic);

}
