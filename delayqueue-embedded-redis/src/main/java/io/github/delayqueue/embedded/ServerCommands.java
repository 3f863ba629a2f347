package io.github.delayqueue.embedded;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolVersion;

/**
 * Talks to a server on {@code 127.0.0.1} with Lettuce: {@code PING} (its readiness) and {@code SHUTDOWN}, each on a
 * connection of its own, through one client (its threads are daemons) for every server of the JVM.
 */
final class ServerCommands {

	private static RedisClient client;

	private ServerCommands() {
	}

	/**
	 * Whether the server on a port answers {@code PING} within half a second.
	 * @param port the port on 127.0.0.1
	 * @return {@code true} if it answered {@code PONG}
	 */
	static boolean ping(int port) {
		try (StatefulRedisConnection<String, String> connection = connect(port, Duration.ofMillis(500))) {
			return "PONG".equals(connection.sync().ping());
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Sends {@code SHUTDOWN} to the server on a port, waiting up to 2 seconds; a server that does not answer is
	 * left to its owner to kill.
	 * @param port the port on 127.0.0.1
	 */
	static void shutdown(int port) {
		try (StatefulRedisConnection<String, String> connection = connect(port, Duration.ofSeconds(2))) {
			// plain SHUTDOWN, as redis-cli sends it: no snapshot is forced (the server saves none, "--save ''"),
			// and the append-only file is synced if there is one; the server closes the connection instead of
			// replying
			connection.async()
				.dispatch(CommandType.SHUTDOWN, new StatusOutput<>(StringCodec.UTF8))
				.await(2, TimeUnit.SECONDS);
		}
		catch (RuntimeException ex) {
			// not answering: killed by the caller if it does not exit
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static StatefulRedisConnection<String, String> connect(int port, Duration timeout) {
		RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(timeout).build();
		return client().connect(StringCodec.UTF8, uri);
	}

	/** One Lettuce client (its threads are daemons) for every server of the JVM: connections are per call. */
	private static synchronized RedisClient client() {
		if (client == null) {
			RedisClient created = RedisClient.create();
			created.setOptions(ClientOptions.builder()
				.protocolVersion(ProtocolVersion.RESP2)
				.autoReconnect(false)
				.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
				.build());
			client = created;
		}
		return client;
	}

}
