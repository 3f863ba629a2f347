package io.github.delayqueue.test.redis;

import java.time.Duration;
import java.util.Locale;

import io.github.delayqueue.embedded.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.Assert;

/**
 * A Redis server for tests, started once per JVM on first use and stopped when the JVM ends, once the application
 * contexts that use it have closed (or after {@value #STOP_WAIT_SECONDS} seconds): a Testcontainers
 * {@code redis} container where a Docker engine answers (and Testcontainers is on the class path), else a
 * {@code redis-server} process on a free loopback port (the binary {@code org.signal:embedded-redis} ships, or one
 * on the {@code PATH}), stopped by its pid. Whether Docker answers is asked cheaply first (a Docker endpoint must be
 * configured, or a Docker socket file exist), and for a few seconds at most, so a machine without Docker neither waits
 * nor fails.
 * <p>
 * The server has {@value #DATABASES} databases; each application context that uses it takes one of its own
 * ({@link #takeDatabase()}) and gives it back when it closes ({@link #releaseDatabase(int)}), so that contexts cached
 * by the test framework do not consume one another's messages.
 *
 * @since 1.0.0
 */
public final class TestRedisServer {

	/** How many databases the server has. */
	public static final int DATABASES = 256;

	/** The image of the container, unless {@value #IMAGE_PROPERTY} names another. */
	public static final String DEFAULT_IMAGE = "redis:7";

	/**
	 * The property that chooses the server: {@code auto}, {@code container} or {@code process} (a system property,
	 * an environment variable {@code DELAYQUEUE_TEST_REDIS_SERVER}, or with Spring Boot any property source).
	 */
	public static final String SERVER_PROPERTY = "delayqueue.test.redis.server";

	/** The system property that names another image for the container. */
	public static final String IMAGE_PROPERTY = "delayqueue.test.redis.image";

	/** How long the JVM's exit waits for the contexts that use the server to close before it stops the server. */
	static final int STOP_WAIT_SECONDS = 15;

	private static final Duration DOCKER_PROBE_TIMEOUT = Duration.ofSeconds(5);

	private static final Logger logger = LoggerFactory.getLogger(TestRedisServer.class);

	private static @Nullable TestRedisServer shared;

	private final Kind kind;

	private final String host;

	private final int port;

	private final Runnable stop;

	private int nextDatabase = 1;

	private boolean wrapped;

	private int inUse;

	private @Nullable RedisClient client;

	private TestRedisServer(Kind kind, String host, int port, Runnable stop) {
		this.kind = kind;
		this.host = host;
		this.port = port;
		this.stop = stop;
	}

	/**
	 * The JVM's server, started on the first call as the choice says (later calls get the same server).
	 * @param choice which server to start
	 * @return the running server
	 * @throws IllegalStateException if a container is asked for and no Docker engine answers
	 */
	public static synchronized TestRedisServer shared(Choice choice) {
		Assert.notNull(choice, "Choice must not be null");
		if (shared == null) {
			TestRedisServer server = start(choice);
			// the test framework closes its cached contexts from shutdown hooks too: the server outlives them
			Runtime.getRuntime().addShutdownHook(new Thread(server::stopOnceUnused, "delayqueue-test-redis-stop"));
			shared = server;
		}
		return shared;
	}

	/**
	 * The JVM's server, chosen by the {@value #SERVER_PROPERTY} system property (or the
	 * {@code DELAYQUEUE_TEST_REDIS_SERVER} environment variable), {@code auto} by default.
	 * @return the running server
	 */
	public static TestRedisServer shared() {
		String value = System.getProperty(SERVER_PROPERTY, System.getenv("DELAYQUEUE_TEST_REDIS_SERVER"));
		return shared(Choice.of(value));
	}

	private static TestRedisServer start(Choice choice) {
		boolean container = switch (choice) {
			case CONTAINER -> {
				if (!DockerProbe.dockerAvailable(DOCKER_PROBE_TIMEOUT)) {
					throw new IllegalStateException(SERVER_PROPERTY + "=container, but Testcontainers is not on the "
							+ "class path or no Docker engine answers");
				}
				yield true;
			}
			case PROCESS -> false;
			case AUTO -> DockerProbe.dockerAvailable(DOCKER_PROBE_TIMEOUT);
		};
		if (container) {
			String image = System.getProperty(IMAGE_PROPERTY, DEFAULT_IMAGE);
			ContainerServer server = ContainerServer.start(image, DATABASES);
			logger.info("Tests use Redis in a {} container at {}:{}", image, server.host(), server.port());
			return new TestRedisServer(Kind.CONTAINER, server.host(), server.port(), server::stop);
		}
		RedisServerProcess process = RedisServerProcess.onFreePort()
			.arguments("--databases", Integer.toString(DATABASES))
			.killOnExit(false)
			.start();
		logger.info("Tests use a redis-server process at 127.0.0.1:{} ({})", process.port(),
				(choice == Choice.PROCESS) ? SERVER_PROPERTY + "=process" : "no Docker engine answers");
		return new TestRedisServer(Kind.PROCESS, "127.0.0.1", process.port(), process::close);
	}

	/**
	 * What kind of server this is.
	 * @return the kind
	 */
	public Kind kind() {
		return this.kind;
	}

	/**
	 * The host to connect to.
	 * @return the host
	 */
	public String host() {
		return this.host;
	}

	/**
	 * The port to connect to.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Takes a database for one application context: the next of {@code 1} to {@code DATABASES - 1}, in turn; once
	 * every one was taken, the turn starts again and a database is emptied before it is given out again. The server
	 * stays up at the JVM's exit until every database taken is given back.
	 * @return the database index
	 */
	public synchronized int takeDatabase() {
		this.inUse++;
		int database = this.nextDatabase;
		if (this.wrapped) {
			flush(database);
		}
		this.nextDatabase = database + 1;
		if (this.nextDatabase == DATABASES) {
			this.nextDatabase = 1;
			this.wrapped = true;
		}
		return database;
	}

	/**
	 * Gives back a database: its application context has closed and uses the server no more.
	 * @param database the database index
	 */
	public synchronized void releaseDatabase(int database) {
		if (this.inUse > 0) {
			this.inUse--;
		}
		notifyAll();
	}

	private void flush(int database) {
		if (this.client == null) {
			this.client = RedisClient.create();
		}
		RedisURI uri = RedisURI.builder().withHost(this.host).withPort(this.port).withDatabase(database).build();
		try (StatefulRedisConnection<String, String> connection = this.client.connect(uri)) {
			connection.sync().flushdb();
		}
	}

	private synchronized void stopOnceUnused() {
		long deadline = System.nanoTime() + Duration.ofSeconds(STOP_WAIT_SECONDS).toNanos();
		while (this.inUse > 0) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				logger.warn("Stopping the test Redis while {} application contexts still use it", this.inUse);
				break;
			}
			try {
				wait(Math.max(1, left / 1_000_000));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		stop();
	}

	private synchronized void stop() {
		if (this.client != null) {
			this.client.shutdown();
		}
		this.stop.run();
	}

	@Override
	public String toString() {
		return "TestRedisServer[" + this.kind.name().toLowerCase(Locale.ROOT) + " " + this.host + ":" + this.port + "]";
	}

	/** The kinds of server. */
	public enum Kind {

		/** A Testcontainers container. */
		CONTAINER,

		/** A {@code redis-server} process. */
		PROCESS

	}

	/** Which server to start. */
	public enum Choice {

		/** A container where a Docker engine answers, else a process. */
		AUTO,

		/** A container; fail without Docker. */
		CONTAINER,

		/** A process, whether Docker answers or not. */
		PROCESS;

		/**
		 * The choice a setting names ({@code auto}, {@code container} or {@code process}, in any case).
		 * @param value the setting, or {@code null} or blank for {@link #AUTO}
		 * @return the choice
		 * @throws IllegalArgumentException for another value
		 */
		public static Choice of(@Nullable String value) {
			if (value == null || value.isBlank()) {
				return AUTO;
			}
			try {
				return valueOf(value.trim().toUpperCase(Locale.ROOT));
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(
						SERVER_PROPERTY + " must be auto, container or process, but was '" + value + "'", ex);
			}
		}

	}

}
