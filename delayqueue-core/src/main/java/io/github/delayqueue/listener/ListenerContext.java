package io.github.delayqueue.listener;

import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.support.DelayQueueMonitor;

/**
 * What the parts of one run of a listener share: its options, the store, the container's properties, the listener's
 * prefetch and crash isolation, and the one queue its claims fill and its handler threads empty. New on every start.
 *
 * @param topic the listener's topic
 * @param partitions how many partitions the topic has
 * @param options the listener's options
 * @param store the Redis store
 * @param properties a copy of the container's properties, taken at start
 * @param prefetch how many messages the listener holds leased, shared between its partitions
 * @param isolation the listener's crash isolation, the same for all the container's runs
 * @param ready the leased messages waiting for a handler thread
 */
record ListenerContext(String topic, int partitions, ListenerOptions options, RedisMessageStore store,
		ContainerProperties properties, Prefetch prefetch, CrashIsolation isolation, ReadyQueue ready) {

	/**
	 * The store's name of a partition (the topic itself for partition 0).
	 * @param index the partition's index
	 * @return its name
	 */
	String partitionName(int index) {
		return TopicKeys.partitionName(this.topic, index);
	}

	/** The monitor told about claims and handlers. */
	DelayQueueMonitor monitor() {
		return this.properties.getMonitor();
	}

	/** The most messages one partition holds leased now: its share of the prefetch. */
	int share() {
		return this.prefetch.share(this.partitions);
	}

}
