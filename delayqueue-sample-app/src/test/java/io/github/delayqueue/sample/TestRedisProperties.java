package io.github.delayqueue.sample;

import io.github.delayqueue.build.redis.TestRedis;

import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * Points a test's application context at a Redis server of the test's own.
 */
final class TestRedisProperties {

	private TestRedisProperties() {
	}

	static void register(DynamicPropertyRegistry registry, TestRedis redis) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("spring.data.redis.database", redis::database);
	}

}
