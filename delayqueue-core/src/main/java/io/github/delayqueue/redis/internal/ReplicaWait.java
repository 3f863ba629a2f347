package io.github.delayqueue.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

/**
 * A script followed by {@code WAIT} on the connection that ran it: how the store makes a change wait for replicas.
 * The one class of the store that needs Lettuce (Spring Data Redis has no {@code WAIT}): it is loaded only when
 * replica acknowledgement is on, which start-up refuses without Lettuce, so that Jedis applications never touch it.
 */
final class ReplicaWait {

	private ReplicaWait() {
	}

	/**
	 * Runs a script and then WAIT on the same connection (WAIT counts that connection's writes). In a cluster both go
	 * to the node connection of the key's master, so that a script redirected elsewhere (MOVED, ASK) cannot be
	 * confirmed by a WAIT on another node: it fails instead, and the call may be made again. Lettuce's own commands,
	 * as Spring Data Redis has none for WAIT.
	 */
	@SuppressWarnings("unchecked")
	static <T> Replicated<T> run(RedisConnection connection, ScriptCalls calls, Script script, ReturnType type,
			int replicas, long timeoutMillis, byte[]... keysAndArgs) {
		Object nativeConnection = connection.getNativeConnection();
		try {
			if (connection instanceof RedisClusterConnection cluster
					&& nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?> commands) {
				RedisClusterNode node = cluster.clusterGetNodeForKey(keysAndArgs[0]);
				Assert.state(node.getHost() != null && node.getPort() != null, () -> "No address for node " + node);
				String host = node.getHost();
				int port = node.getPort();
				for (int attempt = 1;; attempt++) {
					RedisClusterAsyncCommands<byte[], byte[]> nodeCommands = (RedisClusterAsyncCommands<byte[], byte[]>) commands
						.getConnection(host, port);
					try {
						T reply = runOn(calls, script, nodeCommands, type, keysAndArgs);
						return new Replicated<>(reply,
								confirmed(nodeCommands.waitForReplication(replicas, timeoutMillis), timeoutMillis));
					}
					catch (ExecutionException ex) {
						// the slot moved (the client's view of the cluster is behind): follow it once
						String[] moved = movedTo(ex);
						if (moved == null || attempt > 1) {
							throw ex;
						}
						host = moved[0];
						port = Integer.parseInt(moved[1]);
					}
				}
			}
			if (nativeConnection instanceof BaseRedisAsyncCommands<?, ?> commands) {
				T reply = runOn(calls, script, (BaseRedisAsyncCommands<byte[], byte[]>) commands, type, keysAndArgs);
				return new Replicated<>(reply, confirmed(commands.waitForReplication(replicas, timeoutMillis),
						timeoutMillis));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted waiting for replicas", ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new RedisSystemException("The " + script.name() + " call waiting for " + replicas
					+ " replica(s) failed: " + ex.getMessage(), ex);
		}
		throw new IllegalStateException("Waiting for replicas needs a Lettuce connection, but the connection is "
				+ nativeConnection.getClass().getName());
	}

	/**
	 * Runs a script and then WAIT on a connection shared by the application (one master: standalone or Sentinel),
	 * without blocking: both commands go out at once, one behind the other, and the future completes when WAIT
	 * replied. The connection must be Lettuce's shared native connection, which outlives the call.
	 */
	@SuppressWarnings("unchecked")
	static <T> CompletableFuture<Replicated<T>> runAsync(Object nativeConnection, ScriptCalls calls, Script script,
			ReturnType type, int replicas, long timeoutMillis, byte[]... keysAndArgs) {
		Assert.state(nativeConnection instanceof RedisAsyncCommands<?, ?>
				&& !(nativeConnection instanceof RedisAdvancedClusterAsyncCommands<?, ?>),
				"Waiting for replicas without blocking needs Lettuce's shared connection to one master (standalone "
						+ "or Sentinel); in a Redis Cluster use the blocking DelayedQueue");
		RedisAsyncCommands<byte[], byte[]> commands = (RedisAsyncCommands<byte[], byte[]>) nativeConnection;
		CompletableFuture<T> reply = calls.call(commands, script, type, keysAndArgs);
		// WAIT is sent after the script (a call sent again after loading the library or the script comes later, and is
		// waited for again)
		return reply.thenCompose((value) -> commands.waitForReplication(replicas, timeoutMillis)
			.toCompletableFuture()
			.thenApply((confirmed) -> new Replicated<>(value, (confirmed != null) ? confirmed : 0L)));
	}

	/** From a {@code MOVED <slot> <host>:<port>} error, the host and port; else {@code null}. */
	/**
	 * Runs a script on a Lettuce connection of one node (in a cluster, to keep a write and its {@code WAIT} on one
	 * connection).
	 */
	private static <T> T runOn(ScriptCalls calls, Script script, BaseRedisAsyncCommands<byte[], byte[]> commands,
			ReturnType type, byte[]... keysAndArgs) throws ExecutionException, InterruptedException, TimeoutException {
		return calls.<T>call(commands, script, type, keysAndArgs).get(30, TimeUnit.SECONDS);
	}

	private static String @Nullable [] movedTo(ExecutionException ex) {
		String message = (ex.getCause() != null) ? ex.getCause().getMessage() : null;
		if (message == null || !message.startsWith("MOVED ")) {
			return null;
		}
		String[] parts = message.split(" ");
		int colon = (parts.length == 3) ? parts[2].lastIndexOf(':') : -1;
		return (colon > 0) ? new String[] { parts[2].substring(0, colon), parts[2].substring(colon + 1) } : null;
	}

	private static long confirmed(RedisFuture<Long> wait, long timeoutMillis)
			throws InterruptedException, ExecutionException, TimeoutException {
		Long count = wait.get(timeoutMillis + 10_000, TimeUnit.MILLISECONDS);
		Assert.state(count != null, "Redis returned no reply to WAIT");
		return count;
	}

	/** A script's reply and how many replicas confirmed its write. */
	record Replicated<T>(T reply, long confirmed) {
	}

}
