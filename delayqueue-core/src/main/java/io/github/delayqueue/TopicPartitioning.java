package io.github.delayqueue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32;

/**
 * How many partitions each topic has, and which partition a message id belongs to. A topic of N partitions keeps
 * its messages in N sets of keys with hash tags of their own ({@code {topic}}, {@code {topic#1}} ...
 * {@code {topic#N-1}}), so that Redis Cluster spreads one topic over many masters; a message's partition follows from
 * its id (CRC-32 of its UTF-8 bytes, modulo N), so cancel, reschedule and look-ups by id touch one partition. A topic
 * not named here has one partition: the layout a topic always had.
 * <p>
 * Producers and consumers of a topic must agree on its partition count. Redis keeps the count a topic was first used
 * with; an application configured with another count fails on its first use of the topic, saying what to do.
 *
 * @since 0.2.0
 */
public final class TopicPartitioning {

	/** The most partitions a topic may have. */
	public static final int MAX_PARTITIONS = 1024;

	/** Every topic has one partition. */
	public static final TopicPartitioning NONE = new TopicPartitioning(Map.of());

	private final Map<String, Integer> partitions;

	/**
	 * Creates a partitioning.
	 * @param partitions the partition count of each topic that has more than one (1 to {@value #MAX_PARTITIONS})
	 * @throws IllegalArgumentException if a topic or a count is invalid
	 */
	public TopicPartitioning(Map<String, Integer> partitions) {
		if (partitions == null) {
			throw new IllegalArgumentException("Partitions must not be null");
		}
		Map<String, Integer> copy = new TreeMap<>();
		partitions.forEach((topic, count) -> {
			Topics.validate(topic);
			if (count == null || count < 1 || count > MAX_PARTITIONS) {
				throw new IllegalArgumentException("Topic '" + topic + "' must have 1 to " + MAX_PARTITIONS
						+ " partitions, but has " + count);
			}
			copy.put(topic, count);
		});
		this.partitions = Map.copyOf(copy);
	}

	/**
	 * The number of partitions of a topic.
	 * @param topic the topic
	 * @return 1 unless configured otherwise
	 */
	public int partitions(String topic) {
		return this.partitions.getOrDefault(topic, 1);
	}

	/**
	 * The partition a message id belongs to.
	 * @param topic the topic
	 * @param id the message id
	 * @return the partition, from 0 to {@code partitions(topic) - 1}
	 */
	public int partitionOf(String topic, String id) {
		int count = partitions(topic);
		if (count == 1) {
			return 0;
		}
		CRC32 crc = new CRC32();
		crc.update(id.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % count);
	}

	/**
	 * The topics with more than one partition, and their counts.
	 * @return the counts, by topic
	 */
	public Map<String, Integer> partitionedTopics() {
		Map<String, Integer> partitioned = new TreeMap<>();
		this.partitions.forEach((topic, count) -> {
			if (count > 1) {
				partitioned.put(topic, count);
			}
		});
		return partitioned;
	}

	@Override
	public String toString() {
		return "TopicPartitioning" + partitionedTopics();
	}

}
