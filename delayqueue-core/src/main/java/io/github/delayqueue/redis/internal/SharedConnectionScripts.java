package io.github.delayqueue.redis.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceExceptionConverter;
import org.springframework.data.redis.core.RedisTemplate;

/**
 * Runs scripts straight on Lettuce's native connections through {@link ScriptCalls}: on the one shared native
 * connection, the connection every {@code RedisTemplate} call of a {@link LettuceConnectionFactory} that shares it
 * ends up on anyway, and on the native connection of any other Lettuce {@link RedisConnection}. The template builds a
 * connection wrapper per call (with a facade per command family), a cost that a claim or a schedule per message paid in
 * full; here a call costs Lettuce's command and nothing more. What a caller sees is the same: the same reply types, the
 * factory's command timeout, and Lettuce's failures translated into Spring's {@link DataAccessException}s by Spring
 * Data Redis's own converter. The shared native connection is taken from the template once and again whenever it was
 * closed (the factory reset or restarted).
 */
final class SharedConnectionScripts {

	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	private final RedisTemplate<byte[], byte[]> template;

	private final LettuceConnectionFactory factory;

	private final ScriptCalls calls;

	private final long timeoutMillis;

	private volatile @Nullable Native connection;

	SharedConnectionScripts(RedisTemplate<byte[], byte[]> template, LettuceConnectionFactory factory,
			ScriptCalls calls) {
		this.template = template;
		this.factory = factory;
		this.calls = calls;
		this.timeoutMillis = factory.getClientConfiguration().getCommandTimeout().toMillis();
	}

	/** How scripts are called on Lettuce's connections. */
	ScriptCalls calls() {
		return this.calls;
	}

	/** Whether the factory shares its native connection (else each call takes a connection of its own). */
	boolean applies() {
		return this.factory.getShareNativeConnection();
	}

	/**
	 * Runs a script on the shared connection.
	 * @return the reply, as a {@link RedisConnection} gives it
	 */
	<T> @Nullable T run(Script script, ReturnType type, byte[]... keysAndArgs) {
		return await(this.calls.call(commands(), script, type, keysAndArgs));
	}

	/**
	 * Runs a script on the shared connection without blocking; the future completes on the client's I/O thread.
	 */
	<T> CompletableFuture<T> runAsync(Script script, ReturnType type, byte[]... keysAndArgs) {
		try {
			return this.<T>call(commands(), script, type, keysAndArgs).exceptionallyCompose(
					(ex) -> CompletableFuture.failedFuture(translated(unwrapped(ex))));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translated(ex));
		}
	}

	/**
	 * Adds members to a set on the shared connection without blocking; the future completes on the client's I/O
	 * thread.
	 */
	CompletableFuture<Long> sAddAsync(byte[] key, byte[]... members) {
		try {
			CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(key).addValues(members);
			return commands().dispatch(CommandType.SADD, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args)
				.toCompletableFuture()
				.exceptionallyCompose((ex) -> CompletableFuture.failedFuture(translated(unwrapped(ex))));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(translated(ex));
		}
	}

	/**
	 * Runs a script on a connection's native Lettuce connection (see {@link #isLettuce(RedisConnection)}).
	 * @return the reply, as a {@link RedisConnection} gives it
	 */
	<T> @Nullable T runOn(RedisConnection connection, Script script, ReturnType type, byte[]... keysAndArgs) {
		return await(this.<T>call(nativeCommands(connection.getNativeConnection()), script, type, keysAndArgs));
	}

	/** The shared connection's asynchronous commands (taken again only once the connection was closed). */
	BaseRedisAsyncCommands<byte[], byte[]> nativeCommands() {
		return commands();
	}

	/** Whether a connection's native connection takes Lettuce's asynchronous commands. */
	static boolean isLettuce(RedisConnection connection) {
		return !connection.isPipelined() && !connection.isQueueing()
				&& connection.getNativeConnection() instanceof BaseRedisAsyncCommands<?, ?>;
	}

	<T> CompletableFuture<T> call(BaseRedisAsyncCommands<byte[], byte[]> commands, Script script, ReturnType type,
			byte[]... keysAndArgs) {
		return this.calls.call(commands, script, type, keysAndArgs);
	}

	private BaseRedisAsyncCommands<byte[], byte[]> commands() {
		Native connection = this.connection;
		if (connection == null || !connection.stateful().isOpen()) {
			connection = nativeConnection();
			this.connection = connection;
		}
		return connection.commands();
	}

	// (Lettuce 7 deprecates getStatefulConnection() on the asynchronous commands, with nothing else that gives the
	// connection Spring Data Redis shares)
	@SuppressWarnings({ "unchecked", "deprecation" })
	private Native nativeConnection() {
		Object found = this.template.execute(RedisConnection::getNativeConnection, true);
		if (found instanceof RedisAsyncCommands<?, ?> standalone) {
			return new Native((BaseRedisAsyncCommands<byte[], byte[]>) standalone, standalone.getStatefulConnection());
		}
		if (found instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return new Native((BaseRedisAsyncCommands<byte[], byte[]>) cluster, cluster.getStatefulConnection());
		}
		throw new IllegalStateException("Lettuce's shared connection gave no asynchronous commands but " + found);
	}

	@SuppressWarnings("unchecked")
	private static BaseRedisAsyncCommands<byte[], byte[]> nativeCommands(Object nativeConnection) {
		return (BaseRedisAsyncCommands<byte[], byte[]>) nativeConnection;
	}

	private <T> @Nullable T await(CompletableFuture<T> future) {
		try {
			return future.get(this.timeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			future.cancel(true);
			throw translated(new RedisCommandInterruptedException(ex));
		}
		catch (TimeoutException ex) {
			future.cancel(true);
			throw translated(new RedisCommandTimeoutException(
					"Command timed out after " + this.timeoutMillis + " millisecond(s)"));
		}
		catch (ExecutionException ex) {
			throw translated(unwrapped(ex));
		}
	}

	private static Throwable unwrapped(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof ExecutionException || cause instanceof CompletionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	static RuntimeException translated(Throwable ex) {
		if (ex instanceof Exception exception) {
			DataAccessException translated = EXCEPTIONS.convert(exception);
			if (translated != null) {
				return translated;
			}
		}
		return (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
	}

	/** The shared connection's asynchronous commands, and the connection they run on. */
	private record Native(BaseRedisAsyncCommands<byte[], byte[]> commands, StatefulConnection<?, ?> stateful) {
	}

}
