package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.redis.TestRedisDatabase;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.util.Assert;

/**
 * What each Boot line's {@code TestRedisConnectionDetails} shares: the {@link TestRedisDatabase} an application
 * context connects to, given back when the context closes. A line's class adds its Boot's connection details type.
 *
 * @since 1.0.0
 */
public abstract class TestRedisConnectionDetailsSupport implements DisposableBean {

	private final TestRedisDatabase testRedis;

	/**
	 * Creates the details of a test database.
	 * @param testRedis the database
	 */
	protected TestRedisConnectionDetailsSupport(TestRedisDatabase testRedis) {
		Assert.notNull(testRedis, "TestRedisDatabase must not be null");
		this.testRedis = testRedis;
	}

	/**
	 * The database this application context uses.
	 * @return the database
	 */
	public TestRedisDatabase testRedis() {
		return this.testRedis;
	}

	/**
	 * Gives the database back to the server: the context, and its Redis connection, have closed.
	 */
	@Override
	public void destroy() {
		this.testRedis.release();
	}

	@Override
	public String toString() {
		return getClass().getSimpleName() + "[" + this.testRedis + "]";
	}

}
