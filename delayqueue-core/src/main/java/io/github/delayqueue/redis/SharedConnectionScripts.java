package io.github.delayqueue.redis;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
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
 * Runs scripts straight on Lettuce's one shared native connection, the connection every {@code RedisTemplate} call
 * of a {@link LettuceConnectionFactory} that shares it ends up on anyway. The template builds a connection wrapper
 * per call (with a facade per command family), a cost that a claim or a schedule per message paid in full; here a
 * call costs Lettuce's command and nothing more. What a caller sees is the same: the same {@code EVALSHA} with its
 * {@code EVAL} fall back, the same reply types, the factory's command timeout, and Lettuce's failures translated into
 * Spring's {@link DataAccessException}s by Spring Data Redis's own converter. The native connection is taken from the
 * template once and again whenever it was closed (the factory reset or restarted).
 */
final class SharedConnectionScripts {

	private static final LettuceExceptionConverter EXCEPTIONS = new LettuceExceptionConverter();

	private final RedisTemplate<byte[], byte[]> template;

	private final LettuceConnectionFactory factory;

	private final long timeoutMillis;

	private volatile @Nullable Native connection;

	SharedConnectionScripts(RedisTemplate<byte[], byte[]> template, LettuceConnectionFactory factory) {
		this.template = template;
		this.factory = factory;
		this.timeoutMillis = factory.getClientConfiguration().getCommandTimeout().toMillis();
	}

	/** Whether the factory shares its native connection (else each call takes a connection of its own). */
	boolean applies() {
		return this.factory.getShareNativeConnection();
	}

	/**
	 * Runs a script whose first argument is its one key.
	 * @return the reply, as a {@link RedisConnection} gives it
	 */
	<T> @Nullable T run(Script script, ReturnType type, byte[]... keysAndArgs) {
		RedisClusterAsyncCommands<byte[], byte[]> commands = commands();
		try {
			return checked(type, await(send(commands, CommandType.EVALSHA, script.sha1Bytes(), type, keysAndArgs)));
		}
		catch (RuntimeException ex) {
			if (!Script.isNoScript(ex)) {
				throw translated(ex);
			}
		}
		try {
			return checked(type, await(send(commands, CommandType.EVAL, script.text(), type, keysAndArgs)));
		}
		catch (RuntimeException ex) {
			throw translated(ex);
		}
	}

	private static RedisFuture<Object> send(RedisClusterAsyncCommands<byte[], byte[]> commands, CommandType command,
			byte[] script, ReturnType type, byte[][] keysAndArgs) {
		if (ScriptArguments.ENCODED_AS_LETTUCE_DOES) {
			return commands.dispatch(command, outputOf(type), new ScriptArguments(script, keysAndArgs));
		}
		byte[][] keys = { keysAndArgs[0] };
		byte[][] args = Arrays.copyOfRange(keysAndArgs, 1, keysAndArgs.length);
		CommandArgs<byte[], byte[]> plain = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(script)
			.add(1)
			.addKeys(keys)
			.addValues(args);
		return commands.dispatch(command, outputOf(type), plain);
	}

	private RedisClusterAsyncCommands<byte[], byte[]> commands() {
		Native connection = this.connection;
		if (connection == null || !connection.stateful().isOpen()) {
			connection = nativeConnection();
			this.connection = connection;
		}
		return connection.commands();
	}

	@SuppressWarnings("unchecked")
	private Native nativeConnection() {
		Object found = this.template.execute(RedisConnection::getNativeConnection, true);
		if (found instanceof RedisAsyncCommands<?, ?> standalone) {
			return new Native((RedisClusterAsyncCommands<byte[], byte[]>) standalone, standalone.getStatefulConnection());
		}
		if (found instanceof RedisAdvancedClusterAsyncCommands<?, ?> cluster) {
			return new Native((RedisClusterAsyncCommands<byte[], byte[]>) cluster, cluster.getStatefulConnection());
		}
		throw new IllegalStateException("Lettuce's shared connection gave no asynchronous commands but " + found);
	}

	private <T> T await(RedisFuture<T> future) {
		return LettuceFutures.awaitOrCancel(future, this.timeoutMillis, TimeUnit.MILLISECONDS);
	}

	@SuppressWarnings("unchecked")
	private static <T> @Nullable T checked(ReturnType type, @Nullable Object reply) {
		if (type == ReturnType.MULTI && reply instanceof List<?> list) {
			for (Object element : list) {
				if (element instanceof Exception ex) {
					throw translated(ex);
				}
			}
		}
		return (T) reply;
	}

	private static RuntimeException translated(Exception ex) {
		DataAccessException translated = EXCEPTIONS.convert(ex);
		if (translated != null) {
			return translated;
		}
		return (ex instanceof RuntimeException runtime) ? runtime : new IllegalStateException(ex);
	}

	/** The output Lettuce reads a script's reply into, as it picks one for {@code EVALSHA} itself. */
	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static CommandOutput<byte[], byte[], Object> outputOf(ReturnType type) {
		ByteArrayCodec codec = ByteArrayCodec.INSTANCE;
		CommandOutput output = switch (type) {
			case BOOLEAN -> new BooleanOutput<>(codec);
			case MULTI -> new NestedMultiOutput<>(codec);
			case VALUE -> new ValueOutput<>(codec);
			case INTEGER -> new IntegerOutput<>(codec);
			case STATUS -> new StatusOutput<>(codec);
		};
		return output;
	}

	/** The shared connection's asynchronous commands, and the connection they run on. */
	private record Native(RedisClusterAsyncCommands<byte[], byte[]> commands, StatefulConnection<?, ?> stateful) {
	}

}
