package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.redis.TestRedisDatabase;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/**
 * The connection to the test Redis on Spring Boot 4: a {@link TestRedisDatabase} as Boot 4's
 * {@link DataRedisConnectionDetails}, from which Spring Boot builds the application's Redis connection instead of the
 * {@code spring.data.redis.*} properties.
 *
 * @since 1.0.0
 */
public final class TestRedisConnectionDetails extends TestRedisConnectionDetailsSupport
		implements DataRedisConnectionDetails {

	/**
	 * Creates the details of a test database.
	 * @param testRedis the database
	 */
	public TestRedisConnectionDetails(TestRedisDatabase testRedis) {
		super(testRedis);
	}

	@Override
	public Standalone getStandalone() {
		return Standalone.of(testRedis().host(), testRedis().port(), testRedis().index());
	}

}
