package io.github.delayqueue.test.redis;

import org.springframework.core.env.Environment;
import org.springframework.util.Assert;

/**
 * A database of its own on the JVM's {@link TestRedisServer}, for one application context: taken when the context
 * starts, given back when it closes. Each Boot line's {@code TestRedisConnectionDetails} points Spring Boot's Redis
 * connection at it.
 *
 * @since 1.0.0
 */
public final class TestRedisDatabase {

	private final TestRedisServer server;

	private final int index;

	private TestRedisDatabase(TestRedisServer server, int index) {
		this.server = server;
		this.index = index;
	}

	/**
	 * Takes a free database on the JVM's shared server, of the kind {@value TestRedisServer#SERVER_PROPERTY}
	 * chooses.
	 * @param environment the application's environment
	 * @return the database, to {@link #release()} when done
	 */
	public static TestRedisDatabase take(Environment environment) {
		Assert.notNull(environment, "Environment must not be null");
		TestRedisServer server = TestRedisServer
			.shared(TestRedisServer.Choice.of(environment.getProperty(TestRedisServer.SERVER_PROPERTY)));
		return new TestRedisDatabase(server, server.takeDatabase());
	}

	/**
	 * The server.
	 * @return the server
	 */
	public TestRedisServer server() {
		return this.server;
	}

	/**
	 * The database index.
	 * @return the index
	 */
	public int index() {
		return this.index;
	}

	/**
	 * The server's host.
	 * @return the host
	 */
	public String host() {
		return this.server.host();
	}

	/**
	 * The server's port.
	 * @return the port
	 */
	public int port() {
		return this.server.port();
	}

	/**
	 * Gives the database back to the server: the context, and its Redis connection, have closed.
	 */
	public void release() {
		this.server.releaseDatabase(this.index);
	}

	@Override
	public String toString() {
		return this.server + ", database " + this.index;
	}

}
