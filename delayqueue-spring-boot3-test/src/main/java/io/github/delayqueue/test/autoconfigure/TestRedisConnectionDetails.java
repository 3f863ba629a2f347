package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.redis.TestRedisDatabase;

import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;

/**
 * The connection to the test Redis on Spring Boot 3.5, as Boot 3.5's {@link RedisConnectionDetails}: Spring Boot
 * connects to the {@link TestRedisDatabase} instead of what {@code spring.data.redis.*} says.
 *
 * @since 1.0.0
 */
public final class TestRedisConnectionDetails extends TestRedisConnectionDetailsSupport
		implements RedisConnectionDetails {

	/**
	 * Creates the details of a test database.
	 * @param testRedis the database
	 */
	public TestRedisConnectionDetails(TestRedisDatabase testRedis) {
		super(testRedis);
	}

	@Override
	public Standalone getStandalone() {
		TestRedisDatabase redis = testRedis();
		return Standalone.of(redis.host(), redis.port(), redis.index());
	}

}
