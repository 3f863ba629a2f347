package io.github.delayqueue.migration.autoconfigure;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.migration.redisson.RedissonDelayedQueueMigration;
import io.github.delayqueue.migration.redisson.ValueDecoder;
import io.github.delayqueue.payload.PayloadConverter;

import org.springframework.beans.factory.ObjectProvider;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configuration of the Redisson migration: with {@code delayqueue.migration.redisson.enabled=true}, a
 * {@link RedissonMigrationRunner} migrates once when the application starts, reading the values with the codec
 * the properties name or with the application's {@link ValueDecoder} bean.
 *
 * @since 1.0.0
 */
@AutoConfiguration(afterName = "io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration")
@ConditionalOnBooleanProperty("delayqueue.migration.redisson.enabled")
@ConditionalOnBean({ RedisConnectionFactory.class, DelayedQueue.class, PayloadConverter.class })
@EnableConfigurationProperties(RedissonMigrationProperties.class)
public final class RedissonMigrationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedissonDelayedQueueMigration redissonDelayedQueueMigration(RedisConnectionFactory connectionFactory,
			DelayedQueue delayedQueue, PayloadConverter payloadConverter) {
		return new RedissonDelayedQueueMigration(connectionFactory, delayedQueue, payloadConverter);
	}

	@Bean
	@ConditionalOnMissingBean
	RedissonMigrationRunner redissonMigrationRunner(RedissonDelayedQueueMigration migration,
			RedissonMigrationProperties properties, ObjectProvider<ValueDecoder> codec, ResourceLoader resourceLoader) {
		ClassLoader classLoader = resourceLoader.getClassLoader();
		return new RedissonMigrationRunner(migration, properties, codec.getIfUnique(),
				(classLoader != null) ? classLoader : RedissonMigrationRunner.class.getClassLoader());
	}

}
