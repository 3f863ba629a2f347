package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.migration.redisson.MigrationRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of the Redisson migration ({@code delayqueue.migration.redisson.*}).
 *
 * @since 1.0.0
 */
@ConfigurationProperties("delayqueue.migration.redisson")
public class RedissonMigrationProperties {

	/**
	 * Whether to migrate when the application starts (once, by an ApplicationRunner).
	 */
	private boolean enabled;

	/**
	 * Name of the Redisson destination queue whose RDelayedQueue is migrated (the name given to
	 * getBlockingQueue or getQueue).
	 */
	private @Nullable String queue;

	/**
	 * Delayqueue topic the messages are scheduled in.
	 */
	private @Nullable String topic;

	/**
	 * Redisson codec the queue was written with (simple or fully qualified class name). StringCodec and
	 * JsonJacksonCodec are read without Redisson; any other Redisson codec, such as Kryo5Codec, needs Redisson and
	 * the application's classes on the class path. Unset, the application's ValueDecoder bean is used.
	 */
	private @Nullable String codec;

	/**
	 * Whether to remove the migrated elements from Redisson's keys once every element is scheduled.
	 */
	private boolean removeMigrated;

	/**
	 * Elements read, checked and scheduled per round trip.
	 */
	private int batchSize = MigrationRequest.DEFAULT_BATCH_SIZE;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public @Nullable String getQueue() {
		return this.queue;
	}

	public void setQueue(@Nullable String queue) {
		this.queue = queue;
	}

	public @Nullable String getTopic() {
		return this.topic;
	}

	public void setTopic(@Nullable String topic) {
		this.topic = topic;
	}

	public @Nullable String getCodec() {
		return this.codec;
	}

	public void setCodec(@Nullable String codec) {
		this.codec = codec;
	}

	public boolean isRemoveMigrated() {
		return this.removeMigrated;
	}

	public void setRemoveMigrated(boolean removeMigrated) {
		this.removeMigrated = removeMigrated;
	}

	public int getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(int batchSize) {
		this.batchSize = batchSize;
	}

}
