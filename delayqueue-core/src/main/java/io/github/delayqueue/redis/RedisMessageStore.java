package io.github.delayqueue.redis;

import java.time.Duration;

import io.github.delayqueue.redis.internal.ControlOperations;
import io.github.delayqueue.redis.internal.DeadLetterOperations;
import io.github.delayqueue.redis.internal.KnownTopics;
import io.github.delayqueue.redis.internal.Lease;
import io.github.delayqueue.redis.internal.LeaseOperations;
import io.github.delayqueue.redis.internal.MessageOperations;
import io.github.delayqueue.redis.internal.PartitionRegistry;
import io.github.delayqueue.redis.internal.ReactiveScriptExecutor;
import io.github.delayqueue.redis.internal.ScriptExecutor;
import io.github.delayqueue.redis.internal.SubscriptionRegistry;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * The storage layer's entry point: a topic's messages in Redis and the atomic operations on them, each one Lua script
 * on the topic's keys (which share one hash tag, so one cluster slot), timed by the Redis server's clock. It stores
 * bytes (the payload a caller serialised) in its own versioned format, and hands decoded records back. Its operations
 * come in groups, one per job, as {@code RedisTemplate} hands out its operations per data type:
 * {@link #messages()} (what producers do), {@link #leases()} (what consumers do), {@link #deadLetters()},
 * {@link #partitions()} (each topic's partition count), {@link #topics()} (the known topics) and
 * {@link #controls()} (pause, rate limit and concurrency cap of a topic, across instances).
 * <p>
 * A message is waiting (due later or ready), leased to a consumer (its handler running, or waiting in that consumer
 * for a free handler), or dead. Every claim hands out its {@link Lease}s with a new token; acknowledging, extending,
 * failing and releasing present it, so a consumer that stalled past its lease never touches a later claim of the same
 * message.
 * <p>
 * Arguments are not validated here: callers pass validated topics and ids. Scripts are fixed resources; no script
 * text is ever built from input. Messages stored by the previous format (1) are read, and migrated as consumers
 * claim.
 *
 * @since 0.1.0
 */
public class RedisMessageStore {

	/** The most messages one script call writes or deletes, so no single call blocks Redis for long. */
	public static final int CHUNK_SIZE = 1000;

	/**
	 * The most messages the queue stores in one script call (a {@code scheduleAll} of more is several calls, each
	 * atomic): 10 to 25 µs of Redis's time each (more as the topic grows to millions), so a call holds Redis for a
	 * few milliseconds at most, the buckets it splits included (calls of 250 took 16 to 18 ms at a million waiting).
	 * @since 1.0.0
	 */
	public static final int SCHEDULE_CHUNK_SIZE = 100;

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RedisMessageStore.class.getClassLoader());

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final MessageOperations messages;

	private final LeaseOperations leases;

	private final DeadLetterOperations deadLetters;

	private final PartitionRegistry partitions;

	private final SubscriptionRegistry subscriptions;

	private final KnownTopics topics;

	private final ControlOperations controls;

	private final boolean nonBlocking;

	/**
	 * Creates a store.
	 * @param connectionFactory the Redis connection factory
	 * @param keyPrefix the prefix of every key, such as {@code dq}
	 * @param deadLetterPolicy the bounds of each topic's dead letters
	 */
	public RedisMessageStore(RedisConnectionFactory connectionFactory, String keyPrefix,
			DeadLetterPolicy deadLetterPolicy) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		Assert.notNull(deadLetterPolicy, "DeadLetterPolicy must not be null");
		this.keys = new TopicKeys(keyPrefix);
		this.scripts = new ScriptExecutor(connectionFactory);
		ReactiveScriptExecutor reactiveScripts = reactiveScripts(connectionFactory, this.scripts);
		this.nonBlocking = reactiveScripts != null;
		this.messages = new MessageOperations(this.keys, this.scripts, reactiveScripts);
		this.leases = new LeaseOperations(this.keys, this.scripts, deadLetterPolicy, connectionFactory);
		this.deadLetters = new DeadLetterOperations(this.keys, this.scripts, deadLetterPolicy);
		this.subscriptions = new SubscriptionRegistry(this.keys, this.scripts);
		this.partitions = new PartitionRegistry(this.keys, this.scripts, this.messages, this.subscriptions);
		this.topics = new KnownTopics(this.keys, this.scripts, reactiveScripts);
		this.controls = new ControlOperations(this.keys, this.scripts);
	}

	private static @Nullable ReactiveScriptExecutor reactiveScripts(RedisConnectionFactory connectionFactory,
			ScriptExecutor scripts) {
		if (REACTOR_PRESENT && connectionFactory instanceof ReactiveRedisConnectionFactory reactive) {
			return new ReactiveScriptExecutor(reactive, scripts);
		}
		return null;
	}

	/**
	 * Whether the producers' operations can run without blocking a thread ({@code MessageOperations}'
	 * {@code *Async} methods): the connection factory is also a {@link ReactiveRedisConnectionFactory} (Lettuce's
	 * is; Spring Boot's default) and Reactor is on the class path.
	 * @return whether the non-blocking operations are available
	 * @since 1.0.0
	 */
	public boolean isNonBlocking() {
		return this.nonBlocking;
	}

	/**
	 * Sets the stored format this store writes for plain messages (no group, the default priority): {@code 5} (the
	 * default) keeps a message's first wait in small sorted sets of its topic, its pages, at about 100 bytes of Redis
	 * memory a message; {@code 2} keeps it in the topic's one pending set, as releases before 0.3 did, which they can
	 * read. Every script reads both, whichever is set. Write format 2 while an instance of an earlier release still
	 * uses the topics: it reads only the pending set, and a message of a page that reached it could not be read
	 * (UPGRADING.md).
	 * @param storedFormat {@code 5} or {@code 2}
	 * @since 1.0.0
	 */
	public void setStoredFormat(int storedFormat) {
		this.messages.setStoredFormat(storedFormat);
	}

	/**
	 * How this store names its keys.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the key naming
	 */
	public TopicKeys keys() {
		return this.keys;
	}

	/** The script runner the store's operations share (for the recurring schedules' store beside it). */
	ScriptExecutor scripts() {
		return this.scripts;
	}

	/**
	 * What producers do: store, cancel and move messages; count a topic.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the message operations
	 */
	public MessageOperations messages() {
		return this.messages;
	}

	/**
	 * What consumers do: lease due messages and settle their leases.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the lease operations
	 */
	public LeaseOperations leases() {
		return this.leases;
	}

	/**
	 * Dead letters: list, replay, purge.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the dead-letter operations
	 */
	public DeadLetterOperations deadLetters() {
		return this.deadLetters;
	}

	/**
	 * Each topic's partition count, as Redis keeps it.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the partition registry
	 */
	public PartitionRegistry partitions() {
		return this.partitions;
	}

	/**
	 * The subscriptions each topic has.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the registry
	 * @since 1.0.0
	 */
	public SubscriptionRegistry subscriptions() {
		return this.subscriptions;
	}

	/**
	 * The known topics.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the known topics
	 */
	public KnownTopics topics() {
		return this.topics;
	}

	/**
	 * A topic's pause, rate limit and concurrency cap, kept in Redis so that every instance follows them.
	 * For the library's own layers: the type is in {@code io.github.delayqueue.redis.internal}, not an API.
	 * @return the topic controls
	 */
	public ControlOperations controls() {
		return this.controls;
	}

	/**
	 * Makes the changes a user relies on (schedule, cancel, reschedule, dead-letter replay and purge, topic controls)
	 * return only once the given number of replicas confirm them ({@code WAIT}), and fail with a
	 * {@link NotReplicatedException} when fewer do within the timeout (the change is then made on the master, but may
	 * be lost if it fails over). Claims, acknowledgements and retries are not waited for: losing one on a failover only
	 * redelivers a message. While a call waits, commands of other threads sharing its connection wait behind it.
	 * @param replicas how many replicas must confirm; 0 (the default) waits for none
	 * @param timeout how long to wait for them
	 */
	public void setReplicaAcknowledgement(int replicas, Duration timeout) {
		this.scripts.setReplicaAcknowledgement(replicas, timeout);
	}

	/**
	 * How many replicas must confirm a change a user relies on.
	 * @return the count; 0 if none
	 */
	public int getReplicaAcknowledgement() {
		return this.scripts.replicas();
	}

	/**
	 * Whether the store calls its scripts as the functions of delayqueue's Redis Functions library, which it loads
	 * once per server ({@code FUNCTION LOAD}, on every master of a cluster; again after {@code FUNCTION FLUSH} or a
	 * failover to a server without it), or with {@code EVALSHA}, whose every call defines again each helper the
	 * script might use. Functions are the default; a server without them (Redis before 7.0) or a user whose ACL
	 * refuses {@code FCALL} or {@code FUNCTION LOAD} switches the store to {@code EVALSHA} at the first refusal (logged
	 * once at info). Only Lettuce connections call functions; with Jedis the store always uses {@code EVALSHA}. Both
	 * run the same Lua to the same effect.
	 * @param redisFunctions {@code false} to call scripts with {@code EVALSHA} only
	 * @since 1.0.0
	 */
	public void setRedisFunctions(boolean redisFunctions) {
		this.scripts.setFunctions(redisFunctions);
	}

	/**
	 * Whether the store calls its scripts as Redis Functions at the moment (see {@link #setRedisFunctions(boolean)}).
	 * @return {@code false} if switched off, or once a server refused them
	 * @since 1.0.0
	 */
	public boolean isRedisFunctions() {
		return this.scripts.functions();
	}

}
