package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.redis.TestRedisDatabase;
import io.github.delayqueue.test.redis.TestRedisServer;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * Test auto-configuration of a Redis with no set-up, on Spring Boot 4: the application connects to a database of its
 * own on the JVM's {@link TestRedisServer} (a container where a Docker engine answers, a {@code redis-server} process otherwise;
 * {@value TestRedisServer#SERVER_PROPERTY} chooses). Backs off when the test brings its own
 * {@link DataRedisConnectionDetails}, such as a {@code @ServiceConnection} container. Imported by
 * {@link AutoConfigureTestRedis @AutoConfigureTestRedis}.
 *
 * @since 1.0.0
 */
@AutoConfiguration(before = DataRedisAutoConfiguration.class)
@ConditionalOnClass(DataRedisConnectionDetails.class)
public final class TestRedisAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(DataRedisConnectionDetails.class)
	TestRedisConnectionDetails testRedisConnectionDetails(Environment environment) {
		return new TestRedisConnectionDetails(TestRedisDatabase.take(environment));
	}

}
