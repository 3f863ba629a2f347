package io.github.delayqueue.build.redis;

import java.net.URI;
import java.time.Duration;
import java.util.Locale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis server for one test class, chosen in this order:
 * <ol>
 * <li>the server named by the {@value #URL_VARIABLE} environment variable
 * ({@code redis://[:password@]host:port[/database]}), shared, so its database is flushed between tests and it
 * cannot be stopped;</li>
 * <li>a Testcontainers {@code redis:7} container, when a Docker engine answers;</li>
 * <li>a {@code redis-server} process on a free loopback port ({@link io.github.delayqueue.embedded.RedisServerProcess}):
 * the binary that {@code org.signal:embedded-redis} ships for this operating system, else the one on the
 * {@code PATH}.</li>
 * </ol>
 * A container or process server can be {@linkplain #stop() stopped}, {@linkplain #kill() killed} and
 * {@linkplain #start() started} again on the same address; with {@link Builder#appendOnly(boolean) append-only}
 * persistence (every write synced), what it held survives that, as on a production server with AOF.
 *
 * <pre class="code">
 * try (TestRedis redis = TestRedis.builder().appendOnly(true).start()) {
 *     connect(redis.host(), redis.port());
 *     redis.kill();
 *     redis.start();
 * }
 * </pre>
 *
 * @see TestRedisExtension
 */
public final class TestRedis implements AutoCloseable {

	/** The environment variable (or system property) that names an external Redis server for tests. */
	public static final String URL_VARIABLE = "DELAYQUEUE_TEST_REDIS_URL";

	private static final Logger logger = LoggerFactory.getLogger(TestRedis.class);

	static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private final Backend backend;

	private TestRedis(Backend backend) {
		this.backend = backend;
	}

	/**
	 * A builder for a server with non-default settings.
	 * @return a new builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Host name or address to connect to.
	 * @return the host
	 */
	public String host() {
		return this.backend.host();
	}

	/**
	 * Port to connect to.
	 * @return the port
	 */
	public int port() {
		return this.backend.port();
	}

	/**
	 * Password of the server, if it needs one.
	 * @return the password or {@code null}
	 */
	public String password() {
		return this.backend.password();
	}

	/**
	 * Database index tests should use.
	 * @return the database index
	 */
	public int database() {
		return this.backend.database();
	}

	/**
	 * The server's address as a {@code redis://} URL.
	 * @return the URL
	 */
	public String url() {
		String auth = (password() != null) ? ":" + password() + "@" : "";
		return "redis://" + auth + host() + ":" + port() + "/" + database();
	}

	/**
	 * What kind of server this is.
	 * @return the kind
	 */
	public Kind kind() {
		return this.backend.kind();
	}

	/**
	 * Whether this server can be stopped and started again by the test (an external one cannot).
	 * @return {@code true} for a container or a process
	 */
	public boolean canRestart() {
		return this.backend.kind() != Kind.EXTERNAL;
	}

	/**
	 * Whether the server answers {@code PING} now.
	 * @return {@code true} if it answers
	 */
	public boolean isRunning() {
		try {
			return "PONG".equals(RedisCalls.call(host(), port(), password(), database(), Duration.ofMillis(500),
					"PING"));
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Shuts the server down gracefully ({@code SHUTDOWN}), keeping its data directory.
	 * @throws UnsupportedOperationException for an external server
	 */
	public void stop() {
		requireRestartable();
		this.backend.stop();
	}

	/**
	 * Kills the server as a crash would ({@code SIGKILL}), keeping its data directory.
	 * @throws UnsupportedOperationException for an external server
	 */
	public void kill() {
		requireRestartable();
		this.backend.kill();
	}

	/**
	 * Starts the server again on the same address after {@link #stop()} or {@link #kill()}, and waits until it
	 * answers.
	 * @throws UnsupportedOperationException for an external server
	 */
	public void start() {
		requireRestartable();
		this.backend.start();
		awaitRunning(this, STARTUP_TIMEOUT);
	}

	/**
	 * Deletes every key of the test database.
	 */
	public void flush() {
		call("FLUSHDB");
	}

	/**
	 * Sends one command to the server (with Lettuce, on a connection of its own) and returns the reply as text
	 * (array elements joined by new lines). Meant for setup and assertions, such as {@code INFO} or
	 * {@code CONFIG SET}.
	 * @param args the command and its arguments
	 * @return the reply as text, or {@code null} for a null reply
	 * @throws IllegalStateException if the server cannot be reached or replies with an error
	 */
	public String call(String... args) {
		try {
			return RedisCalls.call(host(), port(), password(), database(), Duration.ofSeconds(5), args);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Redis command " + args[0] + " failed at " + host() + ":" + port()
					+ ": " + ex.getMessage(), ex);
		}
	}

	private void requireRestartable() {
		if (!canRestart()) {
			throw new UnsupportedOperationException("An external Redis server (" + URL_VARIABLE + ") cannot be "
					+ "stopped or started by a test; check canRestart() first");
		}
	}

	/**
	 * Stops the server (if the test started it) and deletes its files.
	 */
	@Override
	public void close() {
		this.backend.close();
	}

	@Override
	public String toString() {
		return "TestRedis[" + kind().name().toLowerCase(Locale.ROOT) + " " + host() + ":" + port() + "]";
	}

	static void awaitRunning(TestRedis redis, Duration timeout) {
		Polling.until("Redis to answer PING: " + redis, timeout, redis::isRunning);
	}

	/** The kinds of server this helper can give. */
	public enum Kind {

		/** The server named by {@value TestRedis#URL_VARIABLE}. */
		EXTERNAL,

		/** A Testcontainers container. */
		CONTAINER,

		/** A {@code redis-server} process started by the helper. */
		PROCESS

	}

	/** Settings for a {@link TestRedis} server. */
	public static final class Builder {

		private boolean appendOnly;

		private boolean allowExternal = true;

		private boolean allowContainer = true;

		private Builder() {
		}

		/**
		 * Whether the server persists every write to an append-only file (synced on each write), so that its
		 * data survives {@link TestRedis#kill()} and {@link TestRedis#start()}. Off by default.
		 * @param appendOnly whether to persist
		 * @return this builder
		 */
		public Builder appendOnly(boolean appendOnly) {
			this.appendOnly = appendOnly;
			return this;
		}

		/**
		 * Whether an external server named by {@value TestRedis#URL_VARIABLE} may be used. Tests that must stop
		 * the server turn this off to always get one of their own. On by default.
		 * @param allowExternal whether to use an external server
		 * @return this builder
		 */
		public Builder allowExternal(boolean allowExternal) {
			this.allowExternal = allowExternal;
			return this;
		}

		/**
		 * Whether a Testcontainers container may be used when Docker answers. On by default.
		 * @param allowContainer whether to use a container
		 * @return this builder
		 */
		public Builder allowContainer(boolean allowContainer) {
			this.allowContainer = allowContainer;
			return this;
		}

		/**
		 * Starts the server and waits until it answers; the same as {@link #start()}, for use in field
		 * initialisers.
		 * @return the running server
		 */
		public TestRedis build() {
			return start();
		}

		/**
		 * Starts the server and waits until it answers.
		 * @return the running server
		 */
		public TestRedis start() {
			Backend backend = chooseBackend();
			backend.start();
			TestRedis redis = new TestRedis(backend);
			try {
				awaitRunning(redis, STARTUP_TIMEOUT);
			}
			catch (RuntimeException ex) {
				backend.close();
				throw ex;
			}
			logger.info("Using {}", redis);
			return redis;
		}

		private Backend chooseBackend() {
			String url = System.getenv(URL_VARIABLE);
			if (url == null) {
				url = System.getProperty(URL_VARIABLE);
			}
			if (this.allowExternal && url != null && !url.isBlank()) {
				return ExternalBackend.parse(URI.create(url.trim()));
			}
			if (this.allowContainer && ContainerBackend.dockerAvailable()) {
				return new ContainerBackend(this.appendOnly);
			}
			return new ProcessBackend(this.appendOnly);
		}

	}

}
