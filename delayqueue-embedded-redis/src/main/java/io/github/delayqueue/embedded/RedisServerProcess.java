package io.github.delayqueue.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

import org.springframework.test.util.TestSocketUtils;

/**
 * A {@code redis-server} process bound to {@code 127.0.0.1}, with a data directory of its own that outlives
 * {@link #stop()} and {@link #kill()} until {@link #close()}, so that a restart with append-only persistence finds
 * its data again. The binary is the one {@code org.signal:embedded-redis} ships for this platform (Redis 7.0.15 for
 * Linux and macOS), else {@code redis-server} from the {@code PATH}. Processes still running when the JVM exits
 * are killed (unless {@link Builder#killOnExit(boolean)} leaves that to their owner). It talks to the server with
 * Lettuce (its readiness, {@code SHUTDOWN}); {@link #onFreePort()} takes a port from spring-test's
 * {@code TestSocketUtils}, so it needs {@code spring-test} on the class path.
 * <p>
 * It runs the process's life (start, readiness, stop, kill, the data directory) over one object per other job:
 * {@code RedisBinary} finds the binary, {@code ServerLauncher} starts the process (and kills it when the JVM exits),
 * {@code ServerCommands} talks to it.
 *
 * <pre class="code">
 * try (RedisServerProcess redis = RedisServerProcess.onPort(6379).appendOnly(true).start()) {
 *     ...
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public final class RedisServerProcess implements AutoCloseable {

	private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(20);

	private final Path binary;

	private final Path directory;

	private final ServerLauncher launcher;

	private int port;

	private Process process;

	private RedisServerProcess(Builder builder) {
		this.binary = (builder.binary != null) ? builder.binary : findBinary();
		this.port = builder.port;
		try {
			this.directory = Files.createTempDirectory("redis-server-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		this.launcher = new ServerLauncher(this.binary, builder.appendOnly, builder.arguments, builder.configLines,
				this.directory, builder.killOnExit);
	}

	/**
	 * A server on the given port.
	 * @param port the port on 127.0.0.1
	 * @return a builder
	 */
	public static Builder onPort(int port) {
		if (port < 1 || port > 65535) {
			throw new IllegalArgumentException("Port must be between 1 and 65535, but was " + port);
		}
		return new Builder(port);
	}

	/**
	 * A server on a free port, chosen when it starts (and kept across restarts) by spring-test's
	 * {@code TestSocketUtils}, which must be on the class path.
	 * @return a builder
	 */
	public static Builder onFreePort() {
		return new Builder(0);
	}

	/**
	 * Whether something accepts TCP connections at an address now.
	 * @param host the host
	 * @param port the port
	 * @return {@code true} if a connection succeeded within half a second
	 */
	public static boolean isListening(String host, int port) {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/**
	 * The binary to run: the one {@code org.signal:embedded-redis} ships for this platform, extracted once per
	 * JVM, else {@code redis-server} from the {@code PATH}.
	 * @return the path of the binary
	 * @throws IllegalStateException if there is none
	 */
	public static Path findBinary() {
		return RedisBinary.find();
	}

	/**
	 * Port the server listens on (0 before the first start on a free port).
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * The operating-system process id of the running server.
	 * @return the pid
	 * @throws IllegalStateException if it is not running
	 */
	public synchronized long pid() {
		if (!isAlive()) {
			throw new IllegalStateException("redis-server on port " + this.port + " is not running");
		}
		return this.process.pid();
	}

	/**
	 * The server's data directory (its log is {@code redis.log} there).
	 * @return the directory
	 */
	public Path directory() {
		return this.directory;
	}

	/**
	 * Whether the process is alive.
	 * @return {@code true} while it runs
	 */
	public synchronized boolean isAlive() {
		return this.process != null && this.process.isAlive();
	}

	/**
	 * Starts the process, or starts it again on the same port and directory, and waits until it answers
	 * {@code PING}.
	 * @return this server
	 * @throws IllegalStateException if it does not start
	 */
	public synchronized RedisServerProcess start() {
		if (isAlive()) {
			return this;
		}
		boolean freePort = this.port == 0;
		int tries = freePort ? 5 : 1;
		for (int i = 1; i <= tries; i++) {
			if (freePort) {
				this.port = findFreePort();
			}
			this.process = this.launcher.launch(this.port);
			if (awaitPong()) {
				return this;
			}
			this.process.destroyForcibly();
			ServerLauncher.exited(this.process);
		}
		throw new IllegalStateException("redis-server did not start on port " + this.port + "; see "
				+ this.directory.resolve("redis.log"));
	}

	private boolean awaitPong() {
		try {
			Awaitility.await("redis-server on port " + this.port + " to answer PING")
				.atMost(STARTUP_TIMEOUT)
				.pollDelay(Duration.ZERO)
				.pollInterval(Duration.ofMillis(10))
				.until(() -> !this.process.isAlive() || ServerCommands.ping(this.port));
			return this.process.isAlive();
		}
		catch (ConditionTimeoutException ex) {
			return false;
		}
	}

	/**
	 * Shuts the server down gracefully ({@code SHUTDOWN}), keeping its data directory.
	 */
	public synchronized void stop() {
		if (!isAlive()) {
			return;
		}
		// a server that does not answer is killed below if it does not exit
		ServerCommands.shutdown(this.port);
		awaitExit();
	}

	/**
	 * Kills the server as a crash would ({@code SIGKILL}), keeping its data directory.
	 */
	public synchronized void kill() {
		if (this.process != null) {
			this.process.destroyForcibly();
			awaitExit();
		}
	}

	private void awaitExit() {
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		ServerLauncher.exited(this.process);
	}

	/**
	 * Kills the server and deletes its data directory.
	 */
	@Override
	public synchronized void close() {
		kill();
		try (Stream<Path> files = Files.walk(this.directory)) {
			files.sorted(Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
		}
		catch (IOException ex) {
			// a leftover temporary directory is harmless
		}
	}

	@Override
	public String toString() {
		return "redis-server 127.0.0.1:" + this.port + " (" + this.binary + ")";
	}

	private static int findFreePort() {
		return TestSocketUtils.findAvailableTcpPort();
	}

	/** Settings of a {@link RedisServerProcess}. */
	public static final class Builder {

		private final int port;

		private boolean appendOnly;

		private final List<String> arguments = new ArrayList<>();

		private final List<String> configLines = new ArrayList<>();

		private Path binary;

		private boolean killOnExit = true;

		private Builder(int port) {
			this.port = port;
		}

		/**
		 * Whether every write is persisted to an append-only file and synced, so that data survives
		 * {@link RedisServerProcess#kill()}. Off by default.
		 * @param appendOnly whether to persist
		 * @return this builder
		 */
		public Builder appendOnly(boolean appendOnly) {
			this.appendOnly = appendOnly;
			return this;
		}

		/**
		 * Adds command-line arguments, such as {@code --cluster-enabled yes} or {@code --replicaof 127.0.0.1 6379};
		 * they come after the defaults, so they win where both set one.
		 * @param arguments the arguments
		 * @return this builder
		 */
		public Builder arguments(String... arguments) {
			this.arguments.addAll(List.of(arguments));
			return this;
		}

		/**
		 * Runs another {@code redis-server} binary than the embedded one (one built with TLS, say).
		 * @param binary the binary
		 * @return this builder
		 */
		public Builder binary(Path binary) {
			this.binary = binary;
			return this;
		}

		/**
		 * Adds lines to a configuration file the server starts with (written once into its data directory; a
		 * Sentinel, started with {@code arguments("--sentinel")}, needs one and rewrites it).
		 * @param lines the configuration lines, such as {@code sentinel monitor mymaster 127.0.0.1 6379 2}
		 * @return this builder
		 */
		public Builder configLines(String... lines) {
			this.configLines.addAll(List.of(lines));
			return this;
		}

		/**
		 * Whether the JVM's exit kills the process (from a shutdown hook, at the same time as every other hook). On
		 * by default. An owner that must stop it later than that (after the application contexts that use it have
		 * closed, say) turns it off and stops it itself.
		 * @param killOnExit whether to kill the process when the JVM exits
		 * @return this builder
		 */
		public Builder killOnExit(boolean killOnExit) {
			this.killOnExit = killOnExit;
			return this;
		}

		/**
		 * Creates the server without starting it.
		 * @return the server
		 */
		public RedisServerProcess build() {
			return new RedisServerProcess(this);
		}

		/**
		 * Creates and starts the server.
		 * @return the running server
		 */
		public RedisServerProcess start() {
			return build().start();
		}

	}

}
