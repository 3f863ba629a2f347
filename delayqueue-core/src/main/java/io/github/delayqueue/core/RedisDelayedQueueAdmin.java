package io.github.delayqueue.core;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.GroupControlState;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The {@link DelayedQueueAdmin} on Redis: reads and changes a topic across its partitions, at once (never through a
 * transaction): counts, dead letters, look-up and listing of messages, and the topic's controls (pause, rate limit,
 * concurrency cap), which live in Redis so that every instance follows them.
 * <p>
 * A facade over one object per job: {@code TopicCounting} (stats and due counts), {@code TopicDeadLetters},
 * {@code MessageInfos} (look-up) and {@code WaitingListing}, {@code TopicControls} (the topic's and its groups'
 * controls) and {@code GroupCounting} (top groups); the topics themselves (known topics, partition counts,
 * subscriptions) are its own.
 *
 * @since 1.0.0
 */
public class RedisDelayedQueueAdmin implements DelayedQueueAdmin {

	private final RedisMessageStore store;

	private final PartitionRouter router;

	private final MessageInfos infos;

	private final GroupCounting groupCounting;

	private final TopicCounting counting;

	private final TopicDeadLetters deadLetters;

	private final WaitingListing waiting;

	private final TopicControls controls;

	/**
	 * Creates the admin of a store's topics.
	 * @param store the Redis store
	 * @param converter reads payloads of the messages it finds into types
	 */
	public RedisDelayedQueueAdmin(RedisMessageStore store, PayloadConverter converter) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		this.store = store;
		this.router = new PartitionRouter(store.partitions());
		this.infos = new MessageInfos(store, converter, this.router);
		this.groupCounting = new GroupCounting(store, this.router);
		this.counting = new TopicCounting(store, this.router);
		this.deadLetters = new TopicDeadLetters(store, this.router);
		this.waiting = new WaitingListing(store, this.router, this.infos);
		this.controls = new TopicControls(store, this.router);
	}

	/**
	 * Sets how many partitions each topic has, as the application's producers and consumers use it (reads and
	 * changes follow the count Redis keeps; a message's id is placed with this).
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		this.router.setPartitioning(partitioning);
	}

	@Override
	public TopicStats stats(String topic) {
		return this.counting.stats(topic);
	}

	@Override
	public DueHistogram countDue(String topic, Instant from, Instant to, int windows) {
		return this.counting.countDue(topic, from, to, windows);
	}

	@Override
	public Set<String> knownTopics() {
		return this.store.topics().all();
	}

	@Override
	public int partitions(String topic) {
		Topics.validateTopicOrSubscription(topic);
		// a subscription has its topic's
		return this.store.partitions().of(TopicKeys.topicOf(topic));
	}

	@Override
	public SortedMap<String, Instant> subscriptions(String topic) {
		Topics.validate(topic);
		return new TreeMap<>(this.store.subscriptions().of(topic));
	}

	@Override
	public boolean declareSubscription(String topic, String subscription) {
		Topics.validate(topic);
		Topics.validateSubscription(subscription);
		// the partition count Redis keeps is settled first, so that every partition gets the subscription
		this.router.check(topic);
		boolean added = false;
		for (String partition : this.router.partitionNames(topic)) {
			added |= this.store.subscriptions().declare(partition, subscription);
		}
		// known, so that its controls may be set before its listeners start
		this.store.topics().register(List.of(Topics.subscriptionName(topic, subscription)));
		return added;
	}

	@Override
	public boolean removeSubscription(String topic, String subscription) {
		Topics.validate(topic);
		Topics.validateSubscription(subscription);
		this.router.check(topic);
		boolean declared = this.store.subscriptions().of(topic).containsKey(subscription);
		for (String partition : this.router.partitionNames(topic)) {
			this.store.subscriptions().remove(partition, subscription);
		}
		this.store.topics().forget(Topics.subscriptionName(topic, subscription));
		return declared;
	}

	@Override
	public void changePartitions(String topic, int partitions) {
		Topics.validate(topic);
		Assert.isTrue(partitions >= 1 && partitions <= TopicPartitioning.MAX_PARTITIONS,
				() -> "Partitions must be between 1 and " + TopicPartitioning.MAX_PARTITIONS + ", but was " + partitions);
		TopicControlState before = this.controls.controls(topic);
		Set<String> subscriptions = this.store.subscriptions().of(topic).keySet();
		this.router.change(topic, partitions);
		// each partition keeps its own list: the new ones get the topic's
		for (String partition : this.router.partitionNames(topic)) {
			subscriptions.forEach((name) -> this.store.subscriptions().declare(partition, name));
		}
		// the controls are kept per partition: the new partitions take their shares of what the topic had
		this.controls.carryOver(topic, before);
	}

	@Override
	public List<DeadLetter> deadLetters(String topic, int offset, int limit) {
		return this.deadLetters.list(topic, offset, limit);
	}

	@Override
	public boolean replayDeadLetter(String topic, String id) {
		return this.deadLetters.replay(topic, id);
	}

	@Override
	public long replayDeadLetters(String topic) {
		return this.deadLetters.replayAll(topic);
	}

	@Override
	public boolean purgeDeadLetter(String topic, String id) {
		return this.deadLetters.purge(topic, id);
	}

	@Override
	public long purgeDeadLetters(String topic) {
		return this.deadLetters.purgeAll(topic);
	}

	@Override
	public Optional<MessageInfo> lookup(String topic, String id) {
		return this.infos.lookup(topic, id);
	}

	@Override
	public MessagePage listWaiting(String topic, WaitingQuery query) {
		return this.waiting.list(topic, query);
	}

	@Override
	public TopicControlState pause(String topic) {
		return this.controls.pause(topic);
	}

	@Override
	public TopicControlState resume(String topic) {
		return this.controls.resume(topic);
	}

	@Override
	public TopicControlState setLimits(String topic, TopicLimits limits) {
		return this.controls.setLimits(topic, limits);
	}

	@Override
	public GroupControlState pauseGroup(String topic, String group) {
		return this.controls.pauseGroup(topic, group);
	}

	@Override
	public GroupControlState resumeGroup(String topic, String group) {
		return this.controls.resumeGroup(topic, group);
	}

	@Override
	public GroupControlState setGroupCap(String topic, @Nullable String group, @Nullable Integer cap) {
		return this.controls.setGroupCap(topic, group, cap);
	}

	@Override
	public GroupControlState setGroupRate(String topic, @Nullable String group, @Nullable Double ratePerSecond) {
		return this.controls.setGroupRate(topic, group, ratePerSecond);
	}

	@Override
	public MessagePriorities.PriorityMode setPriorityMode(String topic, MessagePriorities.PriorityMode mode) {
		return this.controls.setPriorityMode(topic, mode);
	}

	@Override
	public MessagePriorities.PriorityMode priorityMode(String topic) {
		return this.controls.priorityMode(topic);
	}

	@Override
	public GroupControlState setGroupWeight(String topic, String group, @Nullable Integer weight) {
		return this.controls.setGroupWeight(topic, group, weight);
	}

	@Override
	public GroupControlState groupControls(String topic, String group) {
		return this.controls.groupControls(topic, group);
	}

	@Override
	public TopGroups topGroups(String topic, int count) {
		return this.groupCounting.top(topic, count);
	}

	/**
	 * Registers topics as known, so that their controls may be set before anything is scheduled to them (as
	 * declared limits are, at start-up).
	 * @param topics the topics
	 */
	public void registerTopics(java.util.Collection<String> topics) {
		topics.forEach(Topics::validateTopicOrSubscription);
		this.store.topics().register(topics);
	}

	@Override
	public TopicControlState controls(String topic) {
		return this.controls.controls(topic);
	}

}
