package io.github.delayqueue.core;

import java.util.List;

import io.github.delayqueue.GroupControlState;
import io.github.delayqueue.MessageGroups;
import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.Topics;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ControlOperations.ControlState;
import io.github.delayqueue.redis.internal.ControlOperations.GroupState;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The controls of a topic and of its groups (the admin's): pause, rate limit, concurrency cap, priority mode and group
 * weight. Redis keeps them per partition: a change gives each partition its share, and a read adds the shares up.
 */
final class TopicControls {

	private final RedisMessageStore store;

	private final PartitionRouter router;

	TopicControls(RedisMessageStore store, PartitionRouter router) {
		this.store = store;
		this.router = router;
	}

	TopicControlState pause(String topic) {
		requireKnown(topic);
		this.router.partitionNames(topic).forEach(this.store.controls()::pause);
		return controls(topic);
	}

	TopicControlState resume(String topic) {
		requireKnown(topic);
		this.router.partitionNames(topic).forEach(this.store.controls()::resume);
		return controls(topic);
	}

	TopicControlState setLimits(String topic, TopicLimits limits) {
		Assert.notNull(limits, "Limits must not be null");
		requireKnown(topic);
		applyLimits(topic, limits);
		return controls(topic);
	}

	/**
	 * Gives a topic whose partition count changed what it had before: the controls are kept per partition, so the
	 * new partitions take their shares of what the topic had.
	 */
	void carryOver(String topic, TopicControlState before) {
		if (before.limits().isLimited()) {
			applyLimits(topic, before.limits());
		}
		if (before.paused()) {
			this.router.partitionNames(topic).forEach(this.store.controls()::pause);
		}
	}

	/** Gives each partition its share of the limits; the shares add up to them. */
	private void applyLimits(String topic, TopicLimits limits) {
		List<String> partitions = this.router.partitionNames(topic);
		int count = partitions.size();
		Integer cap = limits.maxInFlight();
		Assert.isTrue(cap == null || cap >= count, () -> "Topic '" + topic + "' has " + count + " partitions, so its "
				+ "cap must allow at least one message in flight per partition, but was " + cap);
		Double rate = limits.ratePerSecond();
		for (int partition = 0; partition < count; partition++) {
			Double share = (rate != null) ? rate / count : null;
			Long capShare = (cap != null) ? (long) (cap / count + ((partition < cap % count) ? 1 : 0)) : null;
			this.store.controls().limit(partitions.get(partition), share, (share != null) ? Math.max(1, share) : 1,
					capShare);
		}
	}

	GroupControlState pauseGroup(String topic, String group) {
		MessageGroups.validate(group);
		requireKnown(topic);
		this.router.partitionNames(topic).forEach((partition) -> this.store.controls().pauseGroup(partition, group));
		return groupControls(topic, group);
	}

	GroupControlState resumeGroup(String topic, String group) {
		MessageGroups.validate(group);
		requireKnown(topic);
		this.router.partitionNames(topic).forEach((partition) -> this.store.controls().resumeGroup(partition, group));
		return groupControls(topic, group);
	}

	GroupControlState setGroupCap(String topic, @Nullable String group, @Nullable Integer cap) {
		if (group != null) {
			MessageGroups.validate(group);
		}
		Assert.isTrue(cap == null || cap >= 1,
				() -> "Group cap must be at least 1, but was " + cap + " (pause the group to stop its deliveries)");
		requireKnown(topic);
		List<String> partitions = this.router.partitionNames(topic);
		int count = partitions.size();
		Assert.isTrue(cap == null || cap >= count, () -> "Topic '" + topic + "' has " + count + " partitions, so a "
				+ "group's cap must allow at least one message in flight per partition, but was " + cap);
		for (int partition = 0; partition < count; partition++) {
			Long share = (cap != null) ? (long) (cap / count + ((partition < cap % count) ? 1 : 0)) : null;
			this.store.controls().capGroup(partitions.get(partition), group, share);
		}
		return (group != null) ? groupControls(topic, group)
				: new GroupControlState(topic, null, false, null, cap, 0, 0);
	}

	GroupControlState setGroupRate(String topic, @Nullable String group, @Nullable Double ratePerSecond) {
		if (group != null) {
			MessageGroups.validate(group);
		}
		Assert.isTrue(ratePerSecond == null || (ratePerSecond > 0 && Double.isFinite(ratePerSecond)),
				() -> "Group rate limit must be positive, but was " + ratePerSecond
						+ " (pause the group to stop its deliveries)");
		requireKnown(topic);
		List<String> partitions = this.router.partitionNames(topic);
		Double share = (ratePerSecond != null) ? ratePerSecond / partitions.size() : null;
		for (String partition : partitions) {
			this.store.controls().rateGroup(partition, group, share);
		}
		return (group != null) ? groupControls(topic, group)
				: new GroupControlState(topic, null, false, null, null, 0, 0, null, ratePerSecond);
	}

	MessagePriorities.PriorityMode setPriorityMode(String topic, MessagePriorities.PriorityMode mode) {
		Assert.isTrue(mode != null, "Priority mode must not be null");
		requireKnown(topic);
		boolean strict = mode == MessagePriorities.PriorityMode.STRICT;
		this.router.partitionNames(topic).forEach((partition) -> this.store.controls().priorityMode(partition, strict));
		return priorityMode(topic);
	}

	MessagePriorities.PriorityMode priorityMode(String topic) {
		Topics.validateTopicOrSubscription(topic);
		// every partition is set together: the first one says
		return this.store.controls().priorityMode(this.router.partitionNames(topic).get(0), null)
				? MessagePriorities.PriorityMode.STRICT : MessagePriorities.PriorityMode.WEIGHTED;
	}

	GroupControlState setGroupWeight(String topic, String group, @Nullable Integer weight) {
		MessageGroups.validate(group);
		if (weight != null) {
			MessageGroups.validateWeight(weight);
		}
		requireKnown(topic);
		this.router.partitionNames(topic)
			.forEach((partition) -> this.store.controls().weighGroup(partition, group, weight));
		return groupControls(topic, group);
	}

	GroupControlState groupControls(String topic, String group) {
		Topics.validateTopicOrSubscription(topic);
		MessageGroups.validate(group);
		boolean paused = false;
		Long cap = null;
		Long defaultCap = null;
		long inFlight = 0;
		long waiting = 0;
		int weight = 1;
		Double rate = null;
		Double defaultRate = null;
		for (String partition : this.router.partitionNames(topic)) {
			GroupState state = this.store.controls().readGroup(partition, group);
			if (state.weight() != null) {
				weight = Math.max(weight, state.weight());
			}
			if (state.ratePerSecond() != null) {
				rate = ((rate != null) ? rate : 0) + state.ratePerSecond();
			}
			if (state.defaultRatePerSecond() != null) {
				defaultRate = ((defaultRate != null) ? defaultRate : 0) + state.defaultRatePerSecond();
			}
			paused |= state.paused();
			if (state.cap() != null) {
				cap = ((cap != null) ? cap : 0) + state.cap();
			}
			if (state.defaultCap() != null) {
				defaultCap = ((defaultCap != null) ? defaultCap : 0) + state.defaultCap();
			}
			inFlight += state.leased();
			waiting += state.waiting();
		}
		return new GroupControlState(topic, group, paused, toInt(cap), toInt(defaultCap), inFlight, waiting, weight,
				rate, defaultRate);
	}

	private static @Nullable Integer toInt(@Nullable Long value) {
		return (value != null) ? (int) Math.min(Integer.MAX_VALUE, value) : null;
	}

	/**
	 * A topic's controls may be changed only once the topic is known (scheduled to, consumed from, or registered),
	 * so that a misspelt name is refused rather than paused or limited to no effect.
	 */
	private void requireKnown(String topic) {
		Topics.validateTopicOrSubscription(topic);
		Assert.isTrue(this.store.topics().contains(topic), () -> "Topic '" + topic + "' is not known: nothing was "
				+ "ever scheduled to it or consumed from it with this key prefix (check its name)");
		// the partition count Redis keeps is settled first, so that every partition gets the change
		this.router.check(topic);
	}

	TopicControlState controls(String topic) {
		Topics.validateTopicOrSubscription(topic);
		boolean paused = false;
		Double rate = null;
		Long cap = null;
		for (String partition : this.router.partitionNames(topic)) {
			ControlState state = this.store.controls().read(partition);
			paused |= state.paused();
			if (state.ratePerSecond() != null) {
				rate = ((rate != null) ? rate : 0) + state.ratePerSecond();
			}
			if (state.cap() != null) {
				cap = ((cap != null) ? cap : 0) + state.cap();
			}
		}
		// the shares add up to the rate set, but for the last digits of a double
		Double total = (rate != null) ? Math.round(rate * 1e6) / 1e6 : null;
		return new TopicControlState(topic, paused,
				new TopicLimits(total, (cap != null) ? (int) Math.min(Integer.MAX_VALUE, cap) : null));
	}

}
