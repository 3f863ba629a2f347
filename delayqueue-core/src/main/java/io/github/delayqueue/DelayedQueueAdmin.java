package io.github.delayqueue;

import java.util.Set;

/**
 * What operators' tools (the actuator endpoint, health, metrics, a dashboard) work with: the topics in use, their
 * partition counts, their state and their dead letters, read and changed at once on the store, never through a
 * transaction or a user's wrapper. The auto-configured {@code RedisDelayedQueue} is both this and the
 * {@link DelayedQueue}; an application that wraps or replaces its {@link DelayedQueue} keeps this one, so its
 * endpoint, health and metrics keep working.
 */
public interface DelayedQueueAdmin extends TopicOperations {

	/**
	 * The known topics: every topic scheduled to or consumed from (with this key prefix), whether or not it holds
	 * messages now. Reading it is one Redis command; it doubles as a check that Redis answers.
	 * @return the topics, sorted
	 * @throws org.springframework.dao.DataAccessException if Redis cannot be reached
	 */
	Set<String> knownTopics();

	/**
	 * How many partitions a topic has in Redis (see {@link TopicPartitioning}).
	 * @param topic the topic
	 * @return the count; 1 for a topic never used with more
	 */
	int partitions(String topic);

	/**
	 * Changes a topic's partition count in Redis, only while the topic holds no message in any partition (waiting,
	 * in flight or dead). Every producer and consumer of the topic checks the count once, so stop them all first,
	 * and start them with the new count afterwards.
	 * @param topic the topic
	 * @param partitions the new count, 1 to {@value TopicPartitioning#MAX_PARTITIONS}
	 * @throws IllegalStateException if the topic holds messages
	 */
	void changePartitions(String topic, int partitions);

}
