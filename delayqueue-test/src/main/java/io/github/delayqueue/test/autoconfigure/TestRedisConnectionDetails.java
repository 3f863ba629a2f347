package io.github.delayqueue.test.autoconfigure;

import io.github.delayqueue.test.redis.TestRedisServer;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.util.Assert;

/**
 * The connection to the test Redis: a database of its own on the JVM's {@link TestRedisServer}, given back when the
 * application context closes. Spring Boot builds the application's Redis connection from it instead of the
 * {@code spring.data.redis.*} properties.
 *
 * @since 0.3.0
 */
public final class TestRedisConnectionDetails implements DataRedisConnectionDetails, DisposableBean {

	private final TestRedisServer server;

	private final int database;

	/**
	 * Creates the details of a database on a server.
	 * @param server the server
	 * @param database the database index
	 */
	public TestRedisConnectionDetails(TestRedisServer server, int database) {
		Assert.notNull(server, "Server must not be null");
		this.server = server;
		this.database = database;
	}

	/**
	 * The server.
	 * @return the server
	 */
	public TestRedisServer server() {
		return this.server;
	}

	/**
	 * The database index this application context uses.
	 * @return the index
	 */
	public int database() {
		return this.database;
	}

	@Override
	public Standalone getStandalone() {
		return Standalone.of(this.server.host(), this.server.port(), this.database);
	}

	/**
	 * Gives the database back to the server: the context, and its Redis connection, have closed.
	 */
	@Override
	public void destroy() {
		this.server.releaseDatabase(this.database);
	}

	@Override
	public String toString() {
		return "TestRedisConnectionDetails[" + this.server + ", database " + this.database + "]";
	}

}
