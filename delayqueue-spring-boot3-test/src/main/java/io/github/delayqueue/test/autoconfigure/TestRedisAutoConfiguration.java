package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.redis.TestRedisDatabase;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Test auto-configuration of a Redis with no set-up, on Spring Boot 3.5: a {@link TestRedisDatabase} as the
 * application's {@link RedisConnectionDetails}, unless the test brings its own (a {@code @ServiceConnection}
 * container, say). Imported by {@link AutoConfigureTestRedis @AutoConfigureTestRedis}.
 *
 * @since 1.0.0
 */
@AutoConfiguration(before = RedisAutoConfiguration.class)
@ConditionalOnClass(RedisConnectionDetails.class)
public final class TestRedisAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(RedisConnectionDetails.class)
	TestRedisConnectionDetails testRedisConnectionDetails(Environment environment) {
		TestRedisDatabase database = TestRedisDatabase.take(environment);
		return new TestRedisConnectionDetails(database);
	}

}
