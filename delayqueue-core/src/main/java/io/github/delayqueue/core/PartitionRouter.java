package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.redis.internal.PartitionRegistry;
import io.github.delayqueue.redis.internal.TopicKeys;

import org.springframework.util.Assert;

/**
 * Finds the partition of a message: the partition an id belongs to (after checking once per topic that Redis keeps
 * the count this application uses), and every partition a topic has in Redis (for reads and operators' changes,
 * which follow Redis whatever this application uses).
 */
final class PartitionRouter {

	/** What {@link #checkAsync} returns for a topic checked already (completed; never completed again). */
	private static final CompletableFuture<Void> CHECKED = CompletableFuture.completedFuture(null);

	private final PartitionRegistry registry;

	private volatile TopicPartitioning partitioning = TopicPartitioning.NONE;

	/** Topics whose partition count has been checked against the one Redis keeps. */
	private final Set<String> checkedTopics = ConcurrentHashMap.newKeySet();

	PartitionRouter(PartitionRegistry registry) {
		this.registry = registry;
	}

	void setPartitioning(TopicPartitioning partitioning) {
		Assert.notNull(partitioning, "TopicPartitioning must not be null");
		this.partitioning = partitioning;
		this.checkedTopics.clear();
	}

	/** The store's name of the partition of a message id, after checking the topic's partition count once. */
	String partitionOf(String topic, String id) {
		check(topic);
		return partitionOfChecked(topic, id);
	}

	/** The store's name of the partition of a message id, for a topic checked already. */
	String partitionOfChecked(String topic, String id) {
		// a subscription's messages are in the partitions of its topic
		return TopicKeys.partitionName(topic, this.partitioning.partitionOf(TopicKeys.topicOf(topic), id));
	}

	/** The store's names of all partitions a topic has in Redis. */
	List<String> partitionNames(String topic) {
		// a subscription has its topic's partitions
		int count = this.registry.of(TopicKeys.topicOf(topic));
		List<String> names = new ArrayList<>(count);
		for (int partition = 0; partition < count; partition++) {
			names.add(TopicKeys.partitionName(topic, partition));
		}
		return names;
	}

	/** Once per topic: Redis must keep the partition count this application uses (see TopicPartitioning). */
	void check(String topic) {
		if (!this.checkedTopics.contains(topic)) {
			String own = TopicKeys.topicOf(topic);
			this.registry.check(own, this.partitioning.partitions(own));
			this.checkedTopics.add(topic);
		}
	}

	/** {@link #check(String)} without blocking: completed at once for a topic checked already. */
	CompletableFuture<Void> checkAsync(String topic) {
		if (this.checkedTopics.contains(topic)) {
			return CHECKED;
		}
		String own = TopicKeys.topicOf(topic);
		return this.registry.checkAsync(own, this.partitioning.partitions(own))
			.thenRun(() -> this.checkedTopics.add(topic));
	}

	/** {@link #check(String)} of several topics without blocking. */
	CompletableFuture<Void> checkAsync(List<String> topics) {
		if (topics.size() == 1) {
			return checkAsync(topics.get(0));
		}
		return CompletableFuture.allOf(topics.stream().map(this::checkAsync).toArray(CompletableFuture[]::new));
	}

	/** Changes a topic's count in Redis, and checks it again next time. */
	void change(String topic, int partitions) {
		this.registry.change(topic, partitions);
		this.checkedTopics.remove(topic);
	}

}
