package io.github.delayqueue.redis.internal;

import java.time.Duration;

import io.github.delayqueue.redis.NotReplicatedException;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * Runs the store's scripts and commands on one connection factory, and, for the changes a user relies on, waits for
 * replicas to confirm them when asked to.
 */
public final class ScriptExecutor {

	private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			ScriptExecutor.class.getClassLoader());

	private final RedisTemplate<byte[], byte[]> template;

	private final @Nullable SharedConnectionScripts shared;

	private volatile int replicas;

	private volatile Duration replicaTimeout = Duration.ofSeconds(1);

	/**
	 * Creates a runner on a connection factory.
	 * @param connectionFactory the Redis connection factory
	 */
	public ScriptExecutor(RedisConnectionFactory connectionFactory) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		this.template = new RedisTemplate<>();
		this.template.setConnectionFactory(connectionFactory);
		this.template.setEnableDefaultSerializer(false);
		this.template.afterPropertiesSet();
		this.shared = (LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce)
				? new SharedConnectionScripts(this.template, lettuce, new ScriptCalls(true)) : null;
	}

	/** How many replicas must confirm a change a user relies on, and how long to wait for them. */
	public void setReplicaAcknowledgement(int replicas, Duration timeout) {
		Assert.isTrue(replicas >= 0, () -> "Replicas must not be negative, but was " + replicas);
		Assert.isTrue(timeout != null && timeout.toMillis() >= 1,
				() -> "Replica timeout must be at least 1ms, but was " + timeout);
		Assert.state(replicas == 0 || this.template.getConnectionFactory() instanceof LettuceConnectionFactory,
				"Waiting for replicas needs Lettuce (Spring Boot's default Redis client)");
		this.replicaTimeout = timeout;
		this.replicas = replicas;
	}

	/**
	 * Whether scripts are called as the functions of delayqueue's Redis Functions library (the default, with
	 * Lettuce) or with {@code EVALSHA}; a server or user that refuses Functions switches to {@code EVALSHA} anyway.
	 */
	public void setFunctions(boolean functions) {
		SharedConnectionScripts shared = this.shared;
		if (shared != null) {
			shared.calls().setFunctions(functions);
		}
	}

	/** Whether script calls go to the library's functions at the moment (never without Lettuce). */
	public boolean functions() {
		SharedConnectionScripts shared = this.shared;
		return shared != null && shared.calls().functions();
	}

	/** The connection factory the scripts run on. */
	@Nullable Object connectionFactory() {
		return this.template.getConnectionFactory();
	}

	/** How scripts are called on Lettuce's native connections (only with Lettuce). */
	ScriptCalls calls() {
		SharedConnectionScripts shared = this.shared;
		Assert.state(shared != null, "Lettuce's script calls need Lettuce");
		return shared.calls();
	}

	/** The script runner on Lettuce's native connections; {@code null} without Lettuce. */
	@Nullable SharedConnectionScripts lettuce() {
		return this.shared;
	}

	/** How many replicas must confirm a change a user relies on; 0 for none. */
	public int replicas() {
		return this.replicas;
	}

	Duration replicaTimeout() {
		return this.replicaTimeout;
	}

	/** Whether the connection factory hands every caller Lettuce's one shared native connection. */
	boolean sharesNativeConnection() {
		return this.template.getConnectionFactory() instanceof LettuceConnectionFactory lettuce
				&& lettuce.getShareNativeConnection();
	}

	/**
	 * Runs a script whose change a user relies on (a message stored, cancelled, moved, replayed or purged; a topic
	 * paused or limited); with replica acknowledgement, returns only once the replicas confirm it.
	 */
	<T> T runReplicated(Script script, ReturnType type, byte[]... keysAndArgs) {
		int replicas = this.replicas;
		if (replicas == 0) {
			return run(script, type, keysAndArgs);
		}
		long timeoutMillis = this.replicaTimeout.toMillis();
		ReplicaWait.Replicated<T> result = execute(
				(connection) -> ReplicaWait.run(connection, calls(), script, type, replicas, timeoutMillis, keysAndArgs));
		Assert.state(result != null && result.reply() != null,
				() -> "Redis returned no reply to the delayqueue script " + script.name());
		if (result.confirmed() < replicas) {
			throw new NotReplicatedException(script.name(), replicas, result.confirmed(), this.replicaTimeout);
		}
		return result.reply();
	}

	/** Runs a script, its reply as Redis returned it. */
	public <T> T run(Script script, ReturnType type, byte[]... keysAndArgs) {
		SharedConnectionScripts shared = this.shared;
		T reply = (shared != null && shared.applies()) ? shared.run(script, type, keysAndArgs)
				: execute((connection) -> (shared != null && SharedConnectionScripts.isLettuce(connection))
						? shared.<T>runOn(connection, script, type, keysAndArgs)
						: script.run(connection, type, keysAndArgs));
		Assert.state(reply != null, () -> "Redis returned no reply to the delayqueue script " + script.name());
		return reply;
	}

	/** Runs commands on a connection of the factory. */
	public <T> @Nullable T execute(RedisCallback<T> action) {
		return this.template.execute(action, true);
	}

}
