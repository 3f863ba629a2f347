package io.github.delayqueue;

import java.time.Instant;
import java.util.Set;
import java.util.SortedMap;

import org.jspecify.annotations.Nullable;

/**
 * What operators' tools (the actuator endpoint, health, metrics, a dashboard) work with: the topics in use, their
 * partition counts, their state and their dead letters, read and changed at once on the store, never through a
 * transaction or a user's wrapper. Spring Boot declares one, {@code RedisDelayedQueueAdmin}, a bean of its own beside
 * the {@link DelayedQueue} (the producer's side, as {@code KafkaAdmin} is beside {@code KafkaTemplate}): an
 * application that wraps or replaces its {@link DelayedQueue} keeps this one, so its endpoint, health and metrics keep
 * working, and its listener containers pause and resume their topics through it.
 *
 * @since 0.1.0
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
	 * @param topic the topic (or a subscription's full name: its topic's count)
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

	/**
	 * The subscriptions a topic has (see {@link Topics#subscriptionName(String, String)}), each with the Redis time it
	 * was declared: a message fans out to those declared when it falls due.
	 * @param topic the topic
	 * @return the subscriptions' own names, sorted, with their declaration times; empty for a topic without any
	 * @since 1.0.0
	 */
	SortedMap<String, Instant> subscriptions(String topic);

	/**
	 * Declares a subscription of a topic on every partition, as its listeners do when they start: the topic's
	 * messages that fall due from now on fan out to it too, whether or not a listener of it runs yet. Once a topic
	 * has a subscription, it delivers to its subscriptions alone.
	 * @param topic the topic
	 * @param subscription the subscription's own name
	 * @return whether it is new
	 * @since 1.0.0
	 */
	boolean declareSubscription(String topic, String subscription);

	/**
	 * Removes a subscription of a topic: no message fans out to it any more, and what it holds (waiting, in flight or
	 * dead) is forgotten, in chunks, each message's envelope deleted once no other subscription holds it. Stop its
	 * listeners first (a listener that starts declares its subscription again); a topic left without subscriptions
	 * delivers to its own listeners again.
	 * @param topic the topic
	 * @param subscription the subscription's own name
	 * @return whether it was declared
	 * @since 1.0.0
	 */
	boolean removeSubscription(String topic, String subscription);

	/**
	 * Pauses delivery of a topic on every instance (state in Redis, every partition): no message is leased until it
	 * is resumed; messages keep their due times, and those in flight finish. A local stop of a listener container
	 * is something else: it stops one instance's consumer.
	 * @param topic the topic
	 * @return the topic's controls now
	 * @throws UnsupportedOperationException if this implementation predates it (a default method, like the other
	 * controls, so that an implementation written for 0.2 still compiles)
	 * @since 1.0.0
	 */
	default TopicControlState pause(String topic) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement pause");
	}

	/**
	 * Resumes a paused topic on every instance; what is due is delivered at once (consumers are woken, not left to
	 * their next poll).
	 * @param topic the topic
	 * @return the topic's controls now
	 * @since 1.0.0
	 */
	default TopicControlState resume(String topic) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement resume");
	}

	/**
	 * Sets a topic's rate limit and concurrency cap on every instance ({@link TopicLimits#NONE} clears them).
	 * @param topic the topic
	 * @param limits the limits
	 * @return the topic's controls now
	 * @throws IllegalArgumentException if the topic has more partitions than the cap allows messages (each
	 * partition needs one)
	 * @since 1.0.0
	 */
	default TopicControlState setLimits(String topic, TopicLimits limits) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement setLimits");
	}

	/**
	 * Reads a topic's controls.
	 * @param topic the topic
	 * @return whether it is paused, and its limits
	 * @since 1.0.0
	 */
	default TopicControlState controls(String topic) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement controls");
	}

	/**
	 * Pauses one group of a topic on every instance (state in Redis, every partition): none of its messages is leased
	 * until it is resumed, while the topic's other groups flow; its messages keep their due times, and those in flight
	 * finish.
	 * @param topic the topic
	 * @param group the group key
	 * @return the group's controls now
	 * @since 1.0.0
	 */
	default GroupControlState pauseGroup(String topic, String group) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement pauseGroup");
	}

	/**
	 * Resumes a paused group on every instance; what is due is delivered at once.
	 * @param topic the topic
	 * @param group the group key
	 * @return the group's controls now
	 * @since 1.0.0
	 */
	default GroupControlState resumeGroup(String topic, String group) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement resumeGroup");
	}

	/**
	 * Sets or clears the concurrency cap of one group of a topic, or the default cap of each of its groups: the most
	 * messages of one group leased at once (running, or held by a consumer for a handler), across every instance. A
	 * group's own cap overrides the default. A topic of several partitions gives each partition its share.
	 * @param topic the topic
	 * @param group the group key, or {@code null} to set the default of every group of the topic
	 * @param cap the cap, at least 1 (and at least the topic's partition count), or {@code null} to clear it
	 * @return the group's controls now ({@code group} {@code null}: the default alone)
	 * @throws IllegalArgumentException if the cap is below 1 (pause the group instead) or below the partition count
	 * @since 1.0.0
	 */
	default GroupControlState setGroupCap(String topic, @Nullable String group, @Nullable Integer cap) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement setGroupCap");
	}

	/**
	 * Sets or clears the weight of one group of a topic on every instance: its share among the groups served in turn.
	 * While groups have messages due, a group of weight 3 gets three times the share of a group of weight 1 (the
	 * messages without a group count as one group of weight 1); a weight's share holds while a claim has room for it
	 * (a group takes at most a claim's size in one turn). Every partition holds the same weight.
	 * @param topic the topic
	 * @param group the group key
	 * @param weight 1 to {@value MessageGroups#MAX_WEIGHT}, or {@code null} for the default (1)
	 * @return the group's controls now
	 * @throws IllegalArgumentException if the weight is out of range
	 * @since 1.0.0
	 */
	default GroupControlState setGroupWeight(String topic, String group, @Nullable Integer weight) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement setGroupWeight");
	}

	/**
	 * Reads one group's controls and counts.
	 * @param topic the topic
	 * @param group the group key
	 * @return whether it is paused, its caps and weight, and its messages in flight and waiting
	 * @since 1.0.0
	 */
	default GroupControlState groupControls(String topic, String group) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement groupControls");
	}

	/**
	 * Sets or clears the rate limit of one group of a topic, or the default rate limit of each of its groups: the most
	 * handler starts of one group per second, across every instance (a token bucket on the Redis clock with a burst of
	 * one second's starts, at least one). A group's own rate overrides the default. A topic of several partitions
	 * gives each partition an equal share.
	 * @param topic the topic
	 * @param group the group key, or {@code null} to set the default of every group of the topic
	 * @param ratePerSecond the rate, positive, or {@code null} to clear it
	 * @return the group's controls now ({@code group} {@code null}: the default alone)
	 * @throws IllegalArgumentException if the rate is zero, negative or not finite, or the topic is unknown
	 * @since 1.0.0
	 */
	default GroupControlState setGroupRate(String topic, @Nullable String group, @Nullable Double ratePerSecond) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement setGroupRate");
	}

	/**
	 * Sets how a topic orders the priorities of its due messages, on every instance: weighted shares with a
	 * starvation guard (the default) or strict order (see {@link MessagePriorities.PriorityMode}).
	 * @param topic the topic
	 * @param mode the mode
	 * @return the mode now
	 * @throws IllegalArgumentException if the mode is {@code null} or the topic is unknown
	 * @since 1.0.0
	 */
	default MessagePriorities.PriorityMode setPriorityMode(String topic, MessagePriorities.PriorityMode mode) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement setPriorityMode");
	}

	/**
	 * Reads how a topic orders the priorities of its due messages.
	 * @param topic the topic
	 * @return the mode
	 * @since 1.0.0
	 */
	default MessagePriorities.PriorityMode priorityMode(String topic) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement priorityMode");
	}

	/**
	 * Reads the groups of a topic with the most messages waiting, with their messages in flight, pause and weight,
	 * with bounded work: no message is read; each partition looks at no more than {@value TopGroups#LOOKED_AT} of its
	 * groups with a turn and as many held (paused or at their cap), one {@code ZCARD} each, and a topic of several
	 * partitions then counts the groups named on every partition (so their counts are exact sums).
	 * @param topic the topic
	 * @param count how many groups at most, 1 to {@value TopGroups#MAX_COUNT}
	 * @return the groups, the most waiting first, and whether every group was looked at
	 * @throws IllegalArgumentException if the count is out of range
	 * @since 1.0.0
	 */
	default TopGroups topGroups(String topic, int count) {
		throw new UnsupportedOperationException(getClass().getName() + " does not implement topGroups");
	}

}
