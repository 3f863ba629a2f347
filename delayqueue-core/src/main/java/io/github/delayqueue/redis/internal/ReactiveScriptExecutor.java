package io.github.delayqueue.redis.internal;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.redis.NotReplicatedException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

/**
 * Runs the store's scripts without blocking a thread: through Spring Data Redis's reactive connection (Lettuce's
 * shared reactive connection in a Spring Boot application), {@code EVALSHA} with a fall back to {@code EVAL}, and,
 * for a change a user relies on with replica acknowledgement, {@code WAIT} on the same connection right after it.
 * Replies come back as {@link ScriptExecutor}'s do (bulk strings as {@code byte[]}), so the operations read them
 * alike. Each call completes on the client's I/O thread.
 */
public final class ReactiveScriptExecutor {

	/** Why a non-blocking operation cannot run on a store without a non-blocking connection. */
	static final String NOT_NON_BLOCKING = "This store has no non-blocking connection: its connection factory is not a "
			+ "ReactiveRedisConnectionFactory (Lettuce's is; Jedis has none), or Reactor is not on the class path";

	/**
	 * The non-blocking runner a non-blocking operation needs.
	 * @param executor the store's, or {@code null} if it has none
	 * @return the runner
	 * @throws IllegalStateException if the store has none
	 */
	static ReactiveScriptExecutor required(@Nullable ReactiveScriptExecutor executor) {
		Assert.state(executor != null, NOT_NON_BLOCKING);
		return executor;
	}

	private final ReactiveRedisConnectionFactory connectionFactory;

	private final ScriptExecutor blocking;

	/**
	 * Creates a runner beside the blocking one, whose settings (replica acknowledgement, Redis Functions) it follows.
	 * @param connectionFactory the reactive connection factory
	 * @param blocking the store's blocking script runner
	 */
	public ReactiveScriptExecutor(ReactiveRedisConnectionFactory connectionFactory, ScriptExecutor blocking) {
		Assert.notNull(connectionFactory, "ReactiveRedisConnectionFactory must not be null");
		this.connectionFactory = connectionFactory;
		this.blocking = blocking;
	}

	/** Runs a script whose change a user relies on: with replica acknowledgement, completes once they confirm it. */
	<T> CompletableFuture<T> runReplicated(Script script, ReturnType type, byte[]... keysAndArgs) {
		int replicas = this.blocking.replicas();
		if (replicas == 0) {
			return run(script, type, keysAndArgs);
		}
		Duration timeout = this.blocking.replicaTimeout();
		// WAIT counts the writes of the connection it is sent on: the script goes on the same one, Lettuce's shared
		// native connection (Spring Data Redis's reactive API has no WAIT)
		if (!this.blocking.sharesNativeConnection()) {
			return CompletableFuture.failedFuture(new IllegalStateException("Waiting for replicas without blocking "
					+ "needs Lettuce's shared native connection (LettuceConnectionFactory's shareNativeConnection)"));
		}
		// the connection already taken, when there is one: this may run on the client's I/O thread, where taking a
		// connection from the factory could block it
		SharedConnectionScripts lettuce = sharedNative();
		Object nativeConnection = (lettuce != null) ? lettuce.nativeCommands()
				: this.blocking.execute(RedisConnection::getNativeConnection);
		Assert.state(nativeConnection != null, "No native connection to wait for replicas on");
		return ReplicaWait.<T>runAsync(nativeConnection, this.blocking.calls(), script, type, replicas, timeout.toMillis(), keysAndArgs)
			.thenApply((replicated) -> {
				if (replicated.confirmed() < replicas) {
					throw new NotReplicatedException(script.name(), replicas, replicated.confirmed(), timeout);
				}
				return plain(replicated.reply());
			});
	}

	/**
	 * Runs a script: on Lettuce's shared native connection when the blocking side has one (the library's function,
	 * as {@link ScriptCalls} calls it), else through the reactive connection with {@code EVALSHA}.
	 */
	<T> CompletableFuture<T> run(Script script, ReturnType type, byte[]... keysAndArgs) {
		SharedConnectionScripts lettuce = sharedNative();
		if (lettuce != null) {
			return lettuce.runAsync(script, type, keysAndArgs);
		}
		return this.<T>withConnection((connection) -> eval(connection, script, type, keysAndArgs)).toFuture();
	}

	/**
	 * Lettuce's shared native connection, when the blocking side has it on this same factory: calls go there rather
	 * than through the reactive connection (one connection for both; and a continuation on the client's I/O thread
	 * never opens the reactive connection, which would block that thread on its own connect).
	 */
	private @Nullable SharedConnectionScripts sharedNative() {
		SharedConnectionScripts lettuce = this.blocking.lettuce();
		return (lettuce != null && lettuce.applies() && this.blocking.connectionFactory() == this.connectionFactory)
				? lettuce : null;
	}

	/** Adds members to a set. */
	CompletableFuture<Long> sAdd(byte[] key, byte[]... members) {
		SharedConnectionScripts lettuce = sharedNative();
		if (lettuce != null) {
			return lettuce.sAddAsync(key, members);
		}
		List<ByteBuffer> values = new ArrayList<>(members.length);
		for (byte[] member : members) {
			values.add(ByteBuffer.wrap(member));
		}
		return this.<Long>withConnection((connection) -> connection.setCommands().sAdd(ByteBuffer.wrap(key), values))
			.toFuture();
	}

	private <T> Mono<T> withConnection(java.util.function.Function<ReactiveRedisConnection, Mono<T>> action) {
		return Mono.usingWhen(Mono.fromSupplier(this.connectionFactory::getReactiveConnection), action,
				ReactiveRedisConnection::closeLater);
	}

	@SuppressWarnings("unchecked")
	private <T> Mono<T> eval(ReactiveRedisConnection connection, Script script, ReturnType type,
			byte[]... keysAndArgs) {
		// (a pending key declares its topic's meta key too: see Script.declared)
		byte[][] declared = Script.declared(keysAndArgs);
		int keys = declared.length - keysAndArgs.length + 1;
		ByteBuffer[] buffers = new ByteBuffer[declared.length];
		for (int i = 0; i < declared.length; i++) {
			buffers[i] = ByteBuffer.wrap(declared[i]);
		}
		Mono<Object> evalSha = connection.scriptingCommands().evalSha(script.sha1Hex(), type, keys, buffers).next();
		return evalSha
			.onErrorResume(Script::isNoScript,
					(ex) -> connection.scriptingCommands()
						.eval(ByteBuffer.wrap(script.text()), type, keys, rewound(buffers))
						.next())
			.switchIfEmpty(Mono.error(() -> new IllegalStateException(
					"Redis returned no reply to the delayqueue script " + script.name())))
			.map(ReactiveScriptExecutor::<T>plain);
	}

	private static ByteBuffer[] rewound(ByteBuffer[] buffers) {
		ByteBuffer[] fresh = new ByteBuffer[buffers.length];
		for (int i = 0; i < buffers.length; i++) {
			fresh[i] = buffers[i].duplicate().rewind();
		}
		return fresh;
	}

	/** A reply as the blocking connection gives it: bulk strings as {@code byte[]}, lists of them. */
	@SuppressWarnings("unchecked")
	private static <T> T plain(Object reply) {
		if (reply instanceof ByteBuffer buffer) {
			byte[] bytes = new byte[buffer.remaining()];
			buffer.duplicate().get(bytes);
			return (T) bytes;
		}
		if (reply instanceof List<?> list) {
			List<Object> converted = new ArrayList<>(list.size());
			for (Object element : list) {
				converted.add((element != null) ? plain(element) : null);
			}
			return (T) converted;
		}
		return (T) reply;
	}

}
