package io.github.delayqueue.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;

/**
 * Calls the store's scripts on Lettuce's asynchronous commands: {@code FCALL} of the operation's function in
 * delayqueue's library ({@link ScriptLibrary}), loading the library with {@code FUNCTION LOAD} when the server does
 * not have it (a new server, {@code FUNCTION FLUSH}, a failover to a node that lacked it; in a cluster, on every
 * master), and {@code EVALSHA} (then {@code EVAL} on {@code NOSCRIPT}) where Functions are off: switched off by the
 * application, on a server without them (Redis before 7.0), or for an ACL user who may not call or load them. Either
 * way a call runs the same Lua to the same effect; the library only spares each call the definition of every helper
 * it might use. One instance serves one connection factory; the first refusal switches it to scripts for good.
 */
final class ScriptCalls {

	private static final Log logger = LogFactory.getLog(ScriptCalls.class);

	private volatile boolean functions;

	/** The library's load under way, if any: calls that find it missing meanwhile wait for it. */
	private final AtomicReference<@Nullable CompletableFuture<Boolean>> loading = new AtomicReference<>();

	ScriptCalls(boolean functions) {
		this.functions = functions;
	}

	/** Whether calls go to the library's functions (until a server refuses them). */
	boolean functions() {
		return this.functions;
	}

	void setFunctions(boolean functions) {
		this.functions = functions;
	}

	/**
	 * Sends a script call.
	 * @param commands the connection's asynchronous commands (a cluster connection routes the call by its key)
	 * @param script the script
	 * @param type the reply's type
	 * @param keysAndArgs the one key, then the arguments
	 * @return the reply, as a {@code RedisConnection} gives it; a script's error fails it
	 */
	<T> CompletableFuture<T> call(BaseRedisAsyncCommands<byte[], byte[]> commands, Script script, ReturnType type,
			byte[][] keysAndArgs) {
		if (!this.functions) {
			return evalSha(commands, script, type, keysAndArgs);
		}
		return this.<T>send(commands, CommandType.FCALL, script.function(), type, keysAndArgs)
			.exceptionallyCompose((ex) -> {
				if (isNotFound(ex)) {
					// loaded (or found loaded by another instance): called again; still not there (the load failed,
					// say on a full server, or went to another node): this call takes the script
					return load(commands).thenCompose((loaded) -> loaded ? this.<T>send(commands, CommandType.FCALL,
							script.function(), type, keysAndArgs)
						.exceptionallyCompose((again) -> isNotFound(again)
								? evalSha(commands, script, type, keysAndArgs)
								: CompletableFuture.failedFuture(cause(again)))
							: evalSha(commands, script, type, keysAndArgs));
				}
				if (isRefused(ex)) {
					refused("FCALL", ex);
					return evalSha(commands, script, type, keysAndArgs);
				}
				return CompletableFuture.failedFuture(cause(ex));
			});
	}

	private <T> CompletableFuture<T> evalSha(BaseRedisAsyncCommands<byte[], byte[]> commands, Script script,
			ReturnType type, byte[][] keysAndArgs) {
		return this.<T>send(commands, CommandType.EVALSHA, script.sha1Bytes(), type, keysAndArgs)
			.exceptionallyCompose((ex) -> Script.isNoScript(ex)
					? this.<T>send(commands, CommandType.EVAL, script.text(), type, keysAndArgs)
					: CompletableFuture.failedFuture(cause(ex)));
	}

	/**
	 * Loads the library where the key's call runs: on the connection's server, or on every master of a cluster. Calls
	 * that find the library missing while a load is under way wait for that load rather than send another. Never
	 * fails: a load that failed (a full server, a master out of reach) leaves the call to the script.
	 * @return whether the library may be there now ({@code false}: the server refused it, and calls take scripts)
	 */
	// (the cluster's nodes come from getStatefulConnection(), which Lettuce 7 deprecates with nothing in its place)
	@SuppressWarnings("deprecation")
	private CompletableFuture<Boolean> load(BaseRedisAsyncCommands<byte[], byte[]> commands) {
		CompletableFuture<Boolean> loading = this.loading.get();
		if (loading != null && !loading.isDone()) {
			return loading;
		}
		CompletableFuture<Boolean> mine = new CompletableFuture<>();
		if (!this.loading.compareAndSet(loading, mine)) {
			CompletableFuture<Boolean> other = this.loading.get();
			return (other != null) ? other : CompletableFuture.completedFuture(true);
		}
		List<CompletableFuture<Boolean>> loads = new ArrayList<>();
		try {
			if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
				for (RedisClusterNode node : cluster.getStatefulConnection().getPartitions()) {
					if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
						loads.add(cluster.getStatefulConnection()
							.getConnectionAsync(node.getNodeId())
							.thenCompose((connection) -> loadOn(connection.async()))
							.exceptionally((ex) -> loadFailed(ex)));
					}
				}
			}
			else {
				loads.add(loadOn(commands));
			}
		}
		catch (RuntimeException ex) {
			loads.add(CompletableFuture.completedFuture(loadFailed(ex)));
		}
		CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new))
			.whenComplete((all, ex) -> mine.complete(this.functions));
		return mine;
	}

	private CompletableFuture<Boolean> loadOn(BaseRedisAsyncCommands<byte[], byte[]> commands) {
		ScriptLibrary library = ScriptLibrary.get();
		CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).add("LOAD")
			.add(library.codeBytes());
		RedisFuture<String> loaded = commands.dispatch(CommandType.FUNCTION, new StatusOutput<>(ByteArrayCodec.INSTANCE),
				args);
		return loaded.toCompletableFuture().handle((name, ex) -> {
			if (ex == null) {
				logger.debug("Loaded the delayqueue library " + library.name());
				return true;
			}
			String message = cause(ex).getMessage();
			if (message != null && message.contains("already exists")) {
				return true;
			}
			if (isRefused(ex)) {
				refused("FUNCTION LOAD", ex);
				return false;
			}
			return loadFailed(ex);
		});
	}

	private static boolean loadFailed(Throwable ex) {
		logger.debug("Could not load the delayqueue library (calls take the scripts meanwhile): "
				+ cause(ex).getMessage());
		return false;
	}

	private void refused(String command, Throwable ex) {
		if (this.functions) {
			this.functions = false;
			logger.info("Redis refused " + command + " (" + cause(ex).getMessage()
					+ "): delayqueue calls its scripts with EVALSHA instead of its Redis Functions library");
		}
	}

	@SuppressWarnings("unchecked")
	private <T> CompletableFuture<T> send(BaseRedisAsyncCommands<byte[], byte[]> commands, CommandType command,
			byte[] target, ReturnType type, byte[][] keysAndArgs) {
		CommandArgs<byte[], byte[]> args;
		if (ScriptArguments.ENCODED_AS_LETTUCE_DOES) {
			args = new ScriptArguments(target, keysAndArgs);
		}
		else {
			args = ScriptArguments.lettuceArguments(target, keysAndArgs);
		}
		CompletionStage<Object> reply = commands.dispatch(command, outputOf(type), args);
		return reply.toCompletableFuture().thenApply((value) -> (T) checked(type, value));
	}

	/** A reply whose elements hold an error (a script's nested error reply) fails the call. */
	private static Object checked(ReturnType type, Object reply) {
		if (type == ReturnType.MULTI && reply instanceof List<?> list) {
			for (Object element : list) {
				if (element instanceof RuntimeException ex) {
					throw ex;
				}
				if (element instanceof Exception ex) {
					throw new CompletionException(ex);
				}
			}
		}
		return reply;
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

	/** {@code FCALL} of a function the server does not have. */
	static boolean isNotFound(Throwable ex) {
		String message = cause(ex).getMessage();
		return message != null && message.startsWith("ERR Function not found");
	}

	/**
	 * A server without Functions ({@code FCALL} or {@code FUNCTION} unknown), or a user whose ACL refuses the command
	 * itself; not a refusal of a key, a channel or a command run inside a script, which {@code EVALSHA} would meet
	 * alike.
	 */
	static boolean isRefused(Throwable ex) {
		String message = cause(ex).getMessage();
		if (message == null) {
			return false;
		}
		String lower = message.toLowerCase(java.util.Locale.ROOT);
		boolean ours = lower.contains("'fcall'") || lower.contains("'function") || lower.contains("`fcall`")
				|| lower.contains("`function");
		return ours && (message.startsWith("NOPERM") || message.startsWith("ERR unknown command")
				|| message.startsWith("ERR unknown subcommand"));
	}

	private static Throwable cause(Throwable ex) {
		Throwable cause = ex;
		while (cause instanceof CompletionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
