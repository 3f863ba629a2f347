package io.github.delayqueue.migration.redisson;

import io.github.delayqueue.Topics;

import org.springframework.util.Assert;

/**
 * What to migrate: the waiting messages of one Redisson delayed queue, written with one codec, into one topic.
 *
 * <pre class="code">
 * MigrationRequest request = MigrationRequest.of("orders", "order-timeout", RedissonCodec.JSON_JACKSON_CODEC)
 *     .removingMigrated();
 * MigrationRequest kryo = MigrationRequest.of("orders", "order-timeout", ApplicationCodec.of(new Kryo5Codec()));
 * </pre>
 *
 * @param queue the name of the Redisson destination queue the delayed queue feeds (see
 * {@link RedissonDelayedQueueKeys})
 * @param topic the delayqueue topic to schedule the messages in
 * @param codec how to read the values: the codec the Redisson queue was written with, a {@link RedissonCodec} the
 * migration reads itself or the application's own as an {@link ApplicationCodec}
 * @param removeMigrated whether to remove the migrated elements from Redisson's keys once every element is
 * scheduled
 * @param batchSize how many elements are read, checked and scheduled per round trip
 * @since 1.0.0
 */
public record MigrationRequest(String queue, String topic, ValueDecoder codec, boolean removeMigrated,
		int batchSize) {

	/** The batch size unless set: half of what one {@code scheduleAll} chunk holds. */
	public static final int DEFAULT_BATCH_SIZE = 500;

	/** The largest batch size: what one atomic {@code scheduleAll} chunk holds. */
	public static final int MAX_BATCH_SIZE = 1000;

	/**
	 * Creates a request, checking every value.
	 * @param queue the Redisson queue name, not blank
	 * @param topic a valid topic
	 * @param codec the codec
	 * @param removeMigrated whether to remove what was migrated
	 * @param batchSize 1 to {@value #MAX_BATCH_SIZE}
	 */
	public MigrationRequest {
		Assert.isTrue(queue != null && !queue.isBlank(), "Redisson queue name must not be blank");
		Topics.validate(topic);
		Assert.notNull(codec, "Codec must not be null");
		Assert.isTrue(batchSize >= 1 && batchSize <= MAX_BATCH_SIZE,
				() -> "Batch size must be between 1 and " + MAX_BATCH_SIZE + ", but was " + batchSize);
	}

	/**
	 * A request that keeps Redisson's keys as they are, with the default batch size.
	 * @param queue the Redisson queue name
	 * @param topic the topic
	 * @param codec the codec the queue was written with
	 * @return the request
	 */
	public static MigrationRequest of(String queue, String topic, ValueDecoder codec) {
		return new MigrationRequest(queue, topic, codec, false, DEFAULT_BATCH_SIZE);
	}

	/**
	 * This request, removing the migrated elements from Redisson's keys after every element is scheduled.
	 * @return a new request
	 */
	public MigrationRequest removingMigrated() {
		return new MigrationRequest(this.queue, this.topic, this.codec, true, this.batchSize);
	}

	/**
	 * This request with another batch size.
	 * @param batchSize 1 to {@value #MAX_BATCH_SIZE}
	 * @return a new request
	 */
	public MigrationRequest withBatchSize(int batchSize) {
		return new MigrationRequest(this.queue, this.topic, this.codec, this.removeMigrated, batchSize);
	}

}
