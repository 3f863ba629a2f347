package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.migration.redisson.MigrationReport;
import io.github.delayqueue.migration.redisson.MigrationRequest;
import io.github.delayqueue.migration.redisson.RedissonCodec;
import io.github.delayqueue.migration.redisson.RedissonDelayedQueueMigration;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.util.Assert;

/**
 * Runs the Redisson migration once, when the application starts, with the {@code delayqueue.migration.redisson.*}
 * properties. A failure fails the start-up.
 *
 * @since 0.3.0
 */
public class RedissonMigrationRunner implements ApplicationRunner {

	private final RedissonDelayedQueueMigration migration;

	private final RedissonMigrationProperties properties;

	private @Nullable MigrationReport report;

	/**
	 * Creates a runner.
	 * @param migration the migration
	 * @param properties what to migrate
	 */
	public RedissonMigrationRunner(RedissonDelayedQueueMigration migration, RedissonMigrationProperties properties) {
		this.migration = migration;
		this.properties = properties;
	}

	@Override
	public void run(ApplicationArguments args) {
		this.report = this.migration.migrate(request(this.properties));
	}

	/**
	 * What the run found and did.
	 * @return the report, or {@code null} before the run
	 */
	public @Nullable MigrationReport getReport() {
		return this.report;
	}

	static MigrationRequest request(RedissonMigrationProperties properties) {
		String queue = properties.getQueue();
		String topic = properties.getTopic();
		String codec = properties.getCodec();
		Assert.state(queue != null, "Set delayqueue.migration.redisson.queue to the Redisson queue's name");
		Assert.state(topic != null, "Set delayqueue.migration.redisson.topic to the delayqueue topic");
		Assert.state(codec != null, "Set delayqueue.migration.redisson.codec to the Redisson codec the queue was "
				+ "written with (StringCodec or JsonJacksonCodec)");
		MigrationRequest request = MigrationRequest.of(queue, topic, RedissonCodec.named(codec))
			.withBatchSize(properties.getBatchSize());
		return properties.isRemoveMigrated() ? request.removingMigrated() : request;
	}

}
