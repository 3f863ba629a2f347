package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopGroups.GroupCount;
import io.github.delayqueue.Topics;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ControlOperations.GroupCounts;

import org.springframework.util.Assert;

/**
 * Counts of many groups of a topic, bounded (the admin's {@code topGroups}): each partition names its groups with the
 * most messages waiting among at most {@value TopGroups#LOOKED_AT} with a turn and as many held; on a topic of several
 * partitions, the groups named by any partition are then counted on every partition and summed (a group's messages
 * spread over the partitions), so the counts of the groups listed are exact.
 */
final class GroupCounting {

	/** Groups counted per script call, in the second pass over a topic of several partitions. */
	private static final int CHUNK = 500;

	private final RedisMessageStore store;

	private final PartitionRouter router;

	GroupCounting(RedisMessageStore store, PartitionRouter router) {
		this.store = store;
		this.router = router;
	}

	TopGroups top(String topic, int count) {
		Topics.validateTopicOrSubscription(topic);
		Assert.isTrue(count >= 1 && count <= TopGroups.MAX_COUNT,
				() -> "Count must be between 1 and " + TopGroups.MAX_COUNT + ", but was " + count);
		List<String> partitions = this.router.partitionNames(topic);
		boolean complete = true;
		Set<String> candidates = new LinkedHashSet<>();
		List<GroupCount> single = new ArrayList<>();
		for (String partition : partitions) {
			GroupCounts top = this.store.controls().topGroups(partition, count, TopGroups.LOOKED_AT);
			complete &= top.complete();
			top.groups().forEach((group) -> {
				candidates.add(group.group());
				single.add(toCount(group));
			});
		}
		if (partitions.size() == 1) {
			return new TopGroups(topic, single, complete);
		}
		Map<String, GroupCount> summed = new LinkedHashMap<>();
		List<String> names = new ArrayList<>(candidates);
		for (String partition : partitions) {
			for (int from = 0; from < names.size(); from += CHUNK) {
				List<String> chunk = names.subList(from, Math.min(names.size(), from + CHUNK));
				this.store.controls().countGroups(partition, chunk).groups().forEach((group) -> summed
					.merge(group.group(), toCount(group), GroupCounting::sum));
			}
		}
		List<GroupCount> sorted = summed.values()
			.stream()
			.sorted(Comparator.comparingLong(GroupCount::waiting).reversed().thenComparing(GroupCount::group))
			.limit(count)
			.toList();
		return new TopGroups(topic, sorted, complete);
	}

	private static GroupCount toCount(io.github.delayqueue.redis.internal.ControlOperations.GroupCount group) {
		return new GroupCount(group.group(), group.waiting(), group.leased(), group.paused(),
				(group.weight() != null) ? group.weight() : 1);
	}

	private static GroupCount sum(GroupCount a, GroupCount b) {
		return new GroupCount(a.group(), a.waiting() + b.waiting(), a.inFlight() + b.inFlight(),
				a.paused() || b.paused(), Math.max(a.weight(), b.weight()));
	}

}
