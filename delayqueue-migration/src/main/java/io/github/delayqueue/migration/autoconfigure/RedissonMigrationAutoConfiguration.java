package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.migration.redisson.RedissonDelayedQueueMigration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of the Redisson migration: with {@code delayqueue.migration.redisson.enabled=true}, a
 * {@link RedissonMigrationRunner} migrates once when the application starts.
 *
 * @since 0.3.0
 */
@AutoConfiguration(afterName = "io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration")
@ConditionalOnBooleanProperty("delayqueue.migration.redisson.enabled")
@ConditionalOnBean({ RedisConnectionFactory.class, DelayedQueue.class })
@EnableConfigurationProperties(RedissonMigrationProperties.class)
public final class RedissonMigrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedissonDelayedQueueMigration redissonDelayedQueueMigration(RedisConnectionFactory connectionFactory,
			DelayedQueue delayedQueue) {
		return new RedissonDelayedQueueMigration(connectionFactory, delayedQueue);
	}

	@Bean
	@ConditionalOnMissingBean
	RedissonMigrationRunner redissonMigrationRunner(RedissonDelayedQueueMigration migration,
			RedissonMigrationProperties properties) {
		return new RedissonMigrationRunner(migration, properties);
	}

}
