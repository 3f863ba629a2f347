package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.build.redis.TestRedis;

import org.springframework.context.SmartLifecycle;

/**
 * Ties a {@link TestRedis} server to a Spring test context: it stops last (lowest phase), after every component
 * that talks to Redis has stopped, so their shutdown finds Redis still there.
 */
class RedisServerLifecycle implements SmartLifecycle {

	private final TestRedis redis;

	private volatile boolean running;

	RedisServerLifecycle(TestRedis redis) {
		this.redis = redis;
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
		this.redis.close();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return Integer.MIN_VALUE;
	}

}
