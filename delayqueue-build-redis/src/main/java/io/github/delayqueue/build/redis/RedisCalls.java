package io.github.delayqueue.build.redis;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.protocol.ProtocolVersion;

/**
 * Sends one command to a Redis server with Lettuce and returns its reply as text, for the helpers' set-up and for
 * assertions. Each call opens a connection of its own and closes it (a server the test stopped, killed or restarted
 * never leaves a stale one behind); one client and its (daemon) threads serve every call in the JVM.
 */
final class RedisCalls {

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

	private static final Object lock = new Object();

	private static RedisClient client;

	private RedisCalls() {
	}

	/**
	 * Sends one command and returns its reply: a status or bulk string as text, an integer as its decimal text, an
	 * array's elements (nested ones flattened) joined by new lines, {@code null} for a null reply.
	 * @param host the host
	 * @param port the port
	 * @param password the password, or {@code null}
	 * @param database the database index
	 * @param timeout how long the command may take
	 * @param args the command and its arguments
	 * @return the reply
	 * @throws io.lettuce.core.RedisException if the server cannot be reached, does not answer in time, or replies
	 * with an error
	 */
	static String call(String host, int port, String password, int database, Duration timeout, String... args) {
		if (args.length == 0) {
			throw new IllegalArgumentException("No command");
		}
		RedisURI.Builder uri = RedisURI.builder()
			.withHost(host)
			.withPort(port)
			.withDatabase(database)
			.withTimeout(timeout);
		if (password != null) {
			uri.withPassword(password.toCharArray());
		}
		try (StatefulRedisConnection<String, String> connection = client().connect(StringCodec.UTF8, uri.build())) {
			CommandArgs<String, String> arguments = new CommandArgs<>(StringCodec.UTF8);
			Arrays.stream(args, 1, args.length).forEach(arguments::add);
			return connection.sync().dispatch(new Keyword(args[0]), new TextOutput(), arguments);
		}
	}

	/**
	 * Sends one command to a loopback server without a password, database 0, with a timeout of 5 seconds.
	 * @param port the port on 127.0.0.1
	 * @param args the command and its arguments
	 * @return the reply (see {@link #call(String, int, String, int, Duration, String...)})
	 */
	static String call(int port, String... args) {
		return call("127.0.0.1", port, null, 0, Duration.ofSeconds(5), args);
	}

	private static RedisClient client() {
		synchronized (lock) {
			if (client == null) {
				RedisClient created = RedisClient.create();
				// RESP2 replies are flat (maps come as arrays), as the text reply wants them; a lost connection is
				// not reconnected: it belongs to one call
				created.setOptions(ClientOptions.builder()
					.protocolVersion(ProtocolVersion.RESP2)
					.autoReconnect(false)
					.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
					.socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).build())
					.build());
				client = created;
			}
			return client;
		}
	}

	/** A command by its name, as sent: Lettuce's command types do not know every command (nor a wrong one). */
	private record Keyword(String command) implements ProtocolKeyword {

		@Override
		public byte[] getBytes() {
			return this.command.getBytes(StandardCharsets.UTF_8);
		}

		@Override
		public String toString() {
			return this.command;
		}

	}

	/** Collects a reply as text: one value as it is, the values of an array (at any depth) one a line. */
	private static final class TextOutput extends CommandOutput<String, String, String> {

		private final List<String> values = new ArrayList<>();

		private boolean array;

		private boolean nullArray;

		TextOutput() {
			super(StringCodec.UTF8, null);
		}

		@Override
		public void set(ByteBuffer bytes) {
			this.values.add((bytes != null) ? this.codec.decodeValue(bytes) : null);
		}

		@Override
		public void setSingle(ByteBuffer bytes) {
			set(bytes);
		}

		@Override
		public void set(long integer) {
			this.values.add(Long.toString(integer));
		}

		@Override
		public void set(double number) {
			this.values.add(Double.toString(number));
		}

		@Override
		public void multi(int count) {
			if (!this.array && count < 0) {
				this.nullArray = true;
			}
			this.array = true;
		}

		@Override
		public String get() {
			if (!this.array) {
				return this.values.isEmpty() ? null : this.values.get(0);
			}
			if (this.nullArray && this.values.isEmpty()) {
				return null;
			}
			return this.values.stream().map(String::valueOf).collect(Collectors.joining("\n"));
		}

	}

}
