package io.github.delayqueue;

import java.util.Set;

/**
 * What operators' tools (the actuator endpoint, health, metrics, a dashboard) need besides {@link DelayedQueue}:
 * the topics in use and their partition counts. Per-topic state comes from {@link DelayedQueue#stats(String)}, dead letters from
 * {@link DelayedQueue#deadLetters(String, int, int)} and its siblings.
 */
public interface DelayedQueueAdmin {

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
