package io.github.delayqueue.redis;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.util.Assert;

/**
 * The storage layer: a topic's messages in Redis and the atomic operations on them, each one Lua script on the
 * topic's keys (which share one hash tag, so one cluster slot), timed by the Redis server's clock. It stores bytes
 * (the payload a caller serialised) in its own versioned format, and hands decoded records back.
 * <p>
 * A message is waiting (due later or ready), leased to a consumer (its handler running, or waiting in that
 * consumer for a free handler), or dead. Every claim hands out its {@link Lease}s with a new token; acknowledging,
 * extending, failing and releasing present it, so a consumer that stalled past its lease never touches a later claim
 * of the same message. An attempt counts when it fails, or, for a suspect (a message whose lease ran out without an
 * outcome), when it is leased; never for a message that only waited in a consumer, nor for a crash it did not cause.
 * <p>
 * Arguments are not validated here: callers pass validated topics and ids. Scripts are fixed resources; no script
 * text is ever built from input. Messages stored by the previous format (1) are read, and migrated as consumers
 * claim.
 */
public class RedisMessageStore {

	/** The most messages one script call writes or deletes, so no single call blocks Redis for long. */
	public static final int CHUNK_SIZE = 1000;

	private static final Script SCHEDULE = Script.load("schedule");

	private static final Script CANCEL = Script.load("cancel");

	private static final Script RESCHEDULE = Script.load("reschedule");

	private static final Script CLAIM = Script.load("claim");

	private static final Script ACK = Script.load("ack");

	private static final Script FAIL = Script.load("fail");

	private static final Script EXTEND = Script.load("extend");

	private static final Script RELEASE = Script.load("release");

	private static final Script STATS = Script.load("stats");

	private static final Script DEAD_LIST = Script.load("dead-list");

	private static final Script DEAD_REPLAY = Script.load("dead-replay");

	private static final Script DEAD_PURGE = Script.load("dead-purge");

	private static final Script PARTITIONS = Script.load("partitions");

	private static final byte[] RETRY = bytes("retry");

	private static final byte[] BURY = bytes("bury");

	private static final byte[] ALL = bytes("");

	private final RedisTemplate<byte[], byte[]> template;

	private final String keyPrefix;

	private final byte[] topicsKey;

	private final byte[] deadMaxCount;

	private final byte[] deadMaxAge;

	private final ClaimDeadlines deadlines;

	private volatile int replicas;

	private volatile Duration replicaTimeout = Duration.ofSeconds(1);

	/**
	 * Checks a key prefix: not blank, no braces (they would change the hash tag that keeps a topic's keys in one
	 * cluster slot), no white space or control characters.
	 * @param keyPrefix the prefix
	 * @throws IllegalArgumentException if it breaks a rule
	 */
	public static void validateKeyPrefix(@Nullable String keyPrefix) {
		Assert.isTrue(keyPrefix != null && !keyPrefix.isBlank()
				&& keyPrefix.chars().noneMatch((c) -> c == '{' || c == '}' || Character.isWhitespace(c)
						|| Character.isISOControl(c)),
				() -> "Key prefix must not be blank or contain braces, white space or control characters, but was '"
						+ keyPrefix + "'");
	}

	/**
	 * Creates a store.
	 * @param connectionFactory the Redis connection factory
	 * @param keyPrefix the prefix of every key, such as {@code dq}
	 * @param deadLetterPolicy the bounds of each topic's dead letters
	 */
	public RedisMessageStore(RedisConnectionFactory connectionFactory, String keyPrefix,
			DeadLetterPolicy deadLetterPolicy) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		validateKeyPrefix(keyPrefix);
		Assert.notNull(deadLetterPolicy, "DeadLetterPolicy must not be null");
		this.template = new RedisTemplate<>();
		this.template.setConnectionFactory(connectionFactory);
		this.template.setEnableDefaultSerializer(false);
		this.template.afterPropertiesSet();
		this.keyPrefix = keyPrefix;
		this.topicsKey = bytes(keyPrefix + ":topics");
		this.deadMaxCount = bytes(Long.toString(deadLetterPolicy.maxCount()));
		this.deadMaxAge = bytes(Long.toString(deadLetterPolicy.maxAge().toMillis()));
		this.deadlines = new ClaimDeadlines(connectionFactory);
	}

	/**
	 * Prefix of every key this store uses.
	 * @return the prefix
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Makes the changes a user relies on (schedule, cancel, reschedule, dead-letter replay and purge) return only
	 * once the given number of replicas confirm them ({@code WAIT}), and fail with a {@link NotReplicatedException}
	 * when fewer do within the timeout (the change is then made on the master, but may be lost if it fails over).
	 * Claims, acknowledgements and retries are not waited for: losing one on a failover only redelivers a message.
	 * While a call waits, commands of other threads sharing its connection wait behind it.
	 * @param replicas how many replicas must confirm; 0 (the default) waits for none
	 * @param timeout how long to wait for them
	 */
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
	 * How many replicas must confirm a change a user relies on.
	 * @return the count; 0 if none
	 */
	public int getReplicaAcknowledgement() {
		return this.replicas;
	}

	/**
	 * The pub/sub channel on which the delay to a topic's new earliest due time is published.
	 * @param topic the topic
	 * @return the channel name
	 */
	public String wakeChannel(String topic) {
		return base(topic) + "wake";
	}

	private String base(String topic) {
		return this.keyPrefix + ":{" + topic + "}:";
	}

	private byte[] key(String topic) {
		return bytes(base(topic) + "pending");
	}

	/**
	 * The name under which the store keeps one partition of a topic, to pass where its methods take a topic: the
	 * topic itself for partition 0 (so a topic of one partition keeps the layout topics always had), else
	 * {@code <topic>#<partition>}, a hash tag of its own ({@code #} never appears in a topic).
	 * @param topic the topic
	 * @param partition the partition, 0 or more
	 * @return the name
	 */
	public static String partitionName(String topic, int partition) {
		Assert.isTrue(partition >= 0, () -> "Partition must not be negative, but was " + partition);
		return (partition == 0) ? topic : topic + "#" + partition;
	}

	/**
	 * How many partitions Redis keeps for a topic.
	 * @param topic the topic
	 * @return the count; 1 for a topic never used with more
	 */
	public int partitionsOf(String topic) {
		int stored = storedPartitions(topic);
		return (stored == 0) ? 1 : stored;
	}

	private int storedPartitions(String topic) {
		return (int) number(run(PARTITIONS, ReturnType.INTEGER, key(topic), bytes(""), bytes("")));
	}

	/** Keeps a count if the count kept now is {@code expected} (0: none); returns the count kept before. */
	private int keepPartitions(String topic, int partitions, int expected) {
		return (int) number(run(PARTITIONS, ReturnType.INTEGER, key(topic), bytes(Integer.toString(partitions)),
				bytes(Integer.toString(expected))));
	}

	/**
	 * Makes sure Redis keeps the given partition count for a topic; the first application to use a topic records
	 * its count (a topic that holds messages of one partition already cannot start with more). Every producer and
	 * consumer of a topic must use the count Redis keeps; {@link #changePartitions(String, int)} changes it.
	 * @param topic the topic
	 * @param partitions the count this application uses
	 * @throws IllegalStateException if Redis keeps another count, saying what to do
	 */
	public void checkPartitions(String topic, int partitions) {
		Assert.isTrue(partitions >= 1, () -> "Partitions must be at least 1, but was " + partitions);
		int stored = storedPartitions(topic);
		if (stored == 0) {
			if (partitions > 1 && held(topic, 1) > 0) {
				throw new IllegalStateException("Topic '" + topic + "' holds messages of one partition, but this "
						+ "application uses " + partitions + ". " + howToChange(topic));
			}
			stored = keepPartitions(topic, partitions, 0);
			if (stored == 0) {
				return;
			}
		}
		if (stored != partitions) {
			throw new IllegalStateException("Topic '" + topic + "' has " + stored + " partition(s) in Redis, but this "
					+ "application uses " + partitions + "; every producer and consumer of a topic must use the count "
					+ "Redis keeps. " + howToChange(topic));
		}
	}

	/**
	 * Changes the partition count Redis keeps for a topic, only while the topic holds no message in any partition
	 * (waiting, in flight or dead). Stop every instance that uses the topic first (they check the count once), and
	 * start them with the new count afterwards.
	 * @param topic the topic
	 * @param partitions the new count
	 * @throws IllegalStateException if the topic holds messages, or its count changed meanwhile
	 */
	public void changePartitions(String topic, int partitions) {
		Assert.isTrue(partitions >= 1, () -> "Partitions must be at least 1, but was " + partitions);
		int stored = storedPartitions(topic);
		long held = held(topic, Math.max(Math.max(stored, 1), partitions));
		if (held > 0) {
			throw new IllegalStateException("Topic '" + topic + "' holds " + held + " message(s); its partition count "
					+ "changes only while it is empty. " + howToChange(topic));
		}
		int before = keepPartitions(topic, partitions, stored);
		Assert.state(before == stored, () -> "Topic '" + topic + "': its partition count changed meanwhile, from "
				+ stored + " to " + before);
	}

	/** Messages a topic holds in its first {@code partitions} partitions, in every state. */
	private long held(String topic, int partitions) {
		long held = 0;
		for (int partition = 0; partition < partitions; partition++) {
			TopicCounts counts = stats(partitionName(topic, partition));
			held += counts.waiting() + counts.ready() + counts.leased() + counts.dead();
		}
		return held;
	}

	private static String howToChange(String topic) {
		return "To change the count: let consumers with the old count drain the topic (replay or purge its dead "
				+ "letters), stop every instance that uses it, call changePartitions('" + topic + "', n) "
				+ "(DelayedQueueAdmin), then start the instances with the new count.";
	}

	/**
	 * Adds topics to the set of known topics ({@code <prefix>:topics}), which metrics and the actuator endpoint
	 * list. One command outside the topics' slots; callers send it once per topic per process.
	 * @param topics the topics
	 */
	public void registerTopics(Collection<String> topics) {
		if (!topics.isEmpty()) {
			byte[][] members = topics.stream().map(RedisMessageStore::bytes).toArray(byte[][]::new);
			execute((connection) -> connection.setCommands().sAdd(this.topicsKey, members));
		}
	}

	/**
	 * The known topics: every topic scheduled to or consumed from with this key prefix.
	 * @return the topics, sorted
	 */
	public Set<String> knownTopics() {
		Set<byte[]> members = execute((connection) -> connection.setCommands().sMembers(this.topicsKey));
		Set<String> topics = new TreeSet<>();
		if (members != null) {
			members.forEach((member) -> topics.add(text(member)));
		}
		return topics;
	}

	/**
	 * Stores messages of one topic whose ids do not exist yet, atomically: one script call.
	 * @param topic the topic
	 * @param messages at most {@value #CHUNK_SIZE} messages
	 * @return per message, whether it was stored ({@code false}: its id existed, nothing changed)
	 */
	public List<Boolean> schedule(String topic, List<NewMessage> messages) {
		Assert.isTrue(messages.size() <= CHUNK_SIZE,
				() -> "At most " + CHUNK_SIZE + " messages per call, but got " + messages.size());
		byte[][] args = new byte[1 + messages.size() * 4][];
		int i = 0;
		args[i++] = key(topic);
		for (NewMessage message : messages) {
			args[i++] = bytes(message.id());
			args[i++] = bytes(message.due().kind());
			args[i++] = bytes(Long.toString(message.due().value()));
			args[i++] = new Envelope(message.createdAt(), message.headers(), message.payload()).encode();
		}
		List<?> reply = runReplicated(SCHEDULE, ReturnType.MULTI, args);
		List<Boolean> stored = new ArrayList<>(reply.size());
		for (Object flag : reply) {
			stored.add(number(flag) == 1L);
		}
		return stored;
	}

	/**
	 * Removes a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was waiting and is gone
	 */
	public boolean cancel(String topic, String id) {
		return number(runReplicated(CANCEL, ReturnType.INTEGER, key(topic), bytes(id))) == 1L;
	}

	/**
	 * Moves the due time of a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @param due the new due time
	 * @return {@code true} if it was waiting and has moved
	 */
	public boolean reschedule(String topic, String id, DueTime due) {
		return number(runReplicated(RESCHEDULE, ReturnType.INTEGER, key(topic), bytes(id), bytes(due.kind()),
				bytes(Long.toString(due.value())))) == 1L;
	}

	/**
	 * Returns expired leases to the waiting messages (at their original due time, each a suspect), does the topic's
	 * upkeep, then leases up to {@code limit} due messages under one token, suspects allowed. A message whose attempts
	 * are used up goes to the dead letters instead.
	 * @param topic the topic
	 * @param limit how many messages to lease ({@code 0}: only the upkeep)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts
	 * @return the leased messages, and the delay to the next due time or lease deadline
	 */
	public Claim claim(String topic, int limit, long leaseMillis, int maxAttempts) {
		return claim(topic, List.of(), limit, leaseMillis, maxAttempts, true);
	}

	/**
	 * What a consumer sends for more messages, in one script call: acknowledges delivered messages, returns expired
	 * leases to the waiting messages (at their original due time, each a suspect: its lease ran out without an
	 * outcome, so it may have killed its consumer), does the topic's upkeep, then leases up to {@code limit} due
	 * messages under one token.
	 * <p>
	 * Messages are leased in a batch without counting an attempt: the consumer holds them in memory and runs them as
	 * handlers come free; a failure counts its attempt when it is reported ({@link #retry}, {@link #bury}). A suspect
	 * is leased only if {@code mayLeaseSuspect}, at most one per claim, with its attempt counted before its handler
	 * starts: the consumer runs it alone, so a message that kills its JVM uses up its own attempts and nobody else's.
	 * A message whose attempts are used up goes to the dead letters instead.
	 * @param topic the topic
	 * @param acks the leases of delivered messages (a lease that is not current is ignored), at most
	 * {@value #CHUNK_SIZE}
	 * @param limit how many messages to lease ({@code 0}: only the acknowledgements and the upkeep)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts
	 * @param mayLeaseSuspect whether one suspect may be among the leased messages
	 * @return the leased messages (the suspect marked), and the delay to the next due time or lease deadline
	 * (suspects left behind not counted as due)
	 */
	public Claim claim(String topic, List<Lease> acks, int limit, long leaseMillis, int maxAttempts,
			boolean mayLeaseSuspect) {
		Assert.isTrue(acks.size() <= CHUNK_SIZE, () -> "At most " + CHUNK_SIZE + " acks per call");
		return this.deadlines.remember(topic, claimOf(run(CLAIM, ReturnType.MULTI, leaseArgs(key(topic), acks,
				bytes(Integer.toString(limit)), bytes(Long.toString(leaseMillis)), bytes(Integer.toString(maxAttempts)),
				this.deadMaxCount, this.deadMaxAge, flag(mayLeaseSuspect), this.deadlines.forClaimSentNow(topic)))));
	}

	private static byte[] flag(boolean value) {
		return bytes(value ? "1" : "0");
	}

	private static Claim claimOf(List<?> reply) {
		String suspect = text(reply.get(3));
		List<ClaimedMessage> messages = new ArrayList<>((reply.size() - 5) / 4);
		if (reply.size() > 5) {
			long token = number(reply.get(4));
			for (int i = 5; i + 3 < reply.size(); i += 4) {
				Lease lease = new Lease(text(reply.get(i)), token);
				messages.add(new ClaimedMessage(lease, instantOf(reply.get(i + 1)), (int) number(reply.get(i + 2)),
						StoredMessage.decode(nullableBytes(reply.get(i + 3))), lease.id().equals(suspect)));
			}
		}
		return new Claim(Instant.EPOCH.plus(number(reply.get(0)), ChronoUnit.MICROS), messages,
				number(reply.get(1)), (int) number(reply.get(2)));
	}

	/**
	 * Deletes delivered messages; a lease that is not current is ignored.
	 * @param topic the topic
	 * @param leases the leases of the delivered messages
	 * @return how many messages were deleted
	 */
	public long ack(String topic, List<Lease> leases) {
		return chunked(leases, (chunk) -> number(run(ACK, ReturnType.INTEGER, leaseArgs(key(topic), chunk))));
	}

	/**
	 * Schedules another attempt of a failed delivery after a delay.
	 * @param topic the topic
	 * @param lease the failed delivery's lease
	 * @param delayMillis the delay before the next attempt
	 * @param error the error to record
	 * @return {@code true} if the retry was scheduled; {@code false} if the lease was not current
	 */
	public boolean retry(String topic, Lease lease, long delayMillis, String error) {
		return fail(topic, lease, RETRY, delayMillis, error) == 1L;
	}

	/**
	 * Moves the message of a failed delivery (or of one that cannot be read) to the dead letters.
	 * @param topic the topic
	 * @param lease the lease
	 * @param error the error to record
	 * @return {@code true} if it was moved; {@code false} if the lease was not current
	 */
	public boolean bury(String topic, Lease lease, String error) {
		return fail(topic, lease, BURY, 0, error) == 2L;
	}

	private long fail(String topic, Lease lease, byte[] mode, long delayMillis, String error) {
		return number(run(FAIL, ReturnType.INTEGER, key(topic), bytes(lease.id()),
				bytes(Long.toString(lease.token())), mode, bytes(Long.toString(delayMillis * 1000)), bytes(error),
				this.deadMaxCount, this.deadMaxAge));
	}

	/**
	 * Extends current leases.
	 * @param topic the topic
	 * @param leases the leases of messages still being handled or waiting for a handler
	 * @param leaseMillis the new lease from now
	 * @return the ids whose lease was extended (the others are no longer this caller's)
	 */
	public Set<String> extend(String topic, List<Lease> leases, long leaseMillis) {
		Set<String> extended = new HashSet<>();
		for (int from = 0; from < leases.size(); from += CHUNK_SIZE) {
			List<Lease> chunk = leases.subList(from, Math.min(leases.size(), from + CHUNK_SIZE));
			List<?> ids = run(EXTEND, ReturnType.MULTI, leaseArgs(key(topic), chunk, bytes(Long.toString(leaseMillis))));
			ids.forEach((id) -> extended.add(text(id)));
		}
		return extended;
	}

	/**
	 * Hands leased messages back at once: they wait at their due time again, and an attempt that had started is
	 * not counted.
	 * @param topic the topic
	 * @param leases the leases
	 * @return how many were handed back
	 */
	public long release(String topic, List<Lease> leases) {
		return chunked(leases, (chunk) -> number(run(RELEASE, ReturnType.INTEGER, leaseArgs(key(topic), chunk))));
	}

	/**
	 * Counts a topic's messages by state, and finds the next due time, at one instant.
	 * @param topic the topic
	 * @return the counts
	 */
	public TopicCounts stats(String topic) {
		List<?> reply = run(STATS, ReturnType.MULTI, key(topic));
		byte[] next = nullableBytes(reply.get(4));
		return new TopicCounts(number(reply.get(1)), number(reply.get(0)), number(reply.get(2)),
				number(reply.get(3)), (next != null) ? instantOf(next) : null);
	}

	/**
	 * Lists dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit how many at most
	 * @return the dead letters
	 */
	public List<StoredDeadLetter> deadLetters(String topic, int offset, int limit) {
		List<?> reply = run(DEAD_LIST, ReturnType.MULTI, key(topic), bytes(Integer.toString(offset)),
				bytes(Integer.toString(limit)), this.deadMaxCount, this.deadMaxAge);
		List<StoredDeadLetter> letters = new ArrayList<>(reply.size() / 5);
		for (int i = 0; i + 4 < reply.size(); i += 5) {
			byte[] attempts = nullableBytes(reply.get(i + 2));
			byte[] error = nullableBytes(reply.get(i + 3));
			letters.add(new StoredDeadLetter(text(reply.get(i)), attemptsOf(attempts),
					(error != null) ? text(error) : null, Instant.ofEpochMilli(number(reply.get(i + 1))),
					StoredMessage.decode(nullableBytes(reply.get(i + 4)))));
		}
		return letters;
	}

	/**
	 * Makes one dead letter due at once, with its attempts reset.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is now waiting
	 */
	public boolean replayDeadLetter(String topic, String id) {
		return replay(topic, bytes(id)) == 1L;
	}

	/**
	 * Makes every dead letter of a topic due at once, in chunks.
	 * @param topic the topic
	 * @return how many were replayed
	 */
	public long replayDeadLetters(String topic) {
		return repeat(() -> replay(topic, ALL));
	}

	private long replay(String topic, byte[] id) {
		return number(
				runReplicated(DEAD_REPLAY, ReturnType.INTEGER, key(topic), id, bytes(Integer.toString(CHUNK_SIZE))));
	}

	/**
	 * Deletes one dead letter.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is gone
	 */
	public boolean purgeDeadLetter(String topic, String id) {
		return purge(topic, bytes(id)) == 1L;
	}

	/**
	 * Deletes every dead letter of a topic, in chunks.
	 * @param topic the topic
	 * @return how many were deleted
	 */
	public long purgeDeadLetters(String topic) {
		return repeat(() -> purge(topic, ALL));
	}

	private long purge(String topic, byte[] id) {
		return number(
				runReplicated(DEAD_PURGE, ReturnType.INTEGER, key(topic), id, bytes(Integer.toString(CHUNK_SIZE))));
	}

	/** Runs a call that handles at most a chunk until it handles less, adding up what it handled. */
	private static long repeat(java.util.function.LongSupplier chunk) {
		long total = 0;
		long n;
		do {
			n = chunk.getAsLong();
			total += n;
		}
		while (n == CHUNK_SIZE);
		return total;
	}

	/** Runs a call per chunk of {@value #CHUNK_SIZE} items, adding up what each returns. */
	private static <T> long chunked(List<T> items, ToLongFunction<List<T>> call) {
		long total = 0;
		for (int from = 0; from < items.size(); from += CHUNK_SIZE) {
			total += call.applyAsLong(items.subList(from, Math.min(items.size(), from + CHUNK_SIZE)));
		}
		return total;
	}

	private static byte[][] leaseArgs(byte[] key, List<Lease> leases, byte[]... first) {
		byte[][] args = new byte[1 + first.length + leases.size() * 2][];
		int i = 0;
		args[i++] = key;
		for (byte[] arg : first) {
			args[i++] = arg;
		}
		for (Lease lease : leases) {
			args[i++] = bytes(lease.id());
			args[i++] = bytes(Long.toString(lease.token()));
		}
		return args;
	}

	/**
	 * Runs a script whose change a user relies on (a message stored, cancelled, moved, replayed or purged); with
	 * {@link #setReplicaAcknowledgement(int, Duration) replica acknowledgement}, returns only once the replicas
	 * confirm it.
	 */
	private <T> T runReplicated(Script script, ReturnType type, byte[]... keysAndArgs) {
		int replicas = this.replicas;
		if (replicas == 0) {
			return run(script, type, keysAndArgs);
		}
		long timeoutMillis = this.replicaTimeout.toMillis();
		ReplicaWait.Replicated<T> result = execute((connection) -> ReplicaWait.run(connection, script, type, replicas,
				timeoutMillis,
				keysAndArgs));
		Assert.state(result != null && result.reply() != null,
				() -> "Redis returned no reply to the delayqueue script " + script.name());
		if (result.confirmed() < replicas) {
			throw new NotReplicatedException(script.name(), replicas, result.confirmed(), this.replicaTimeout);
		}
		return result.reply();
	}

	private <T> T run(Script script, ReturnType type, byte[]... keysAndArgs) {
		T reply = execute((connection) -> script.run(connection, type, keysAndArgs));
		Assert.state(reply != null, () -> "Redis returned no reply to the delayqueue script " + script.name());
		return reply;
	}

	private <T> @Nullable T execute(RedisCallback<T> action) {
		return this.template.execute(action, true);
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static String text(Object value) {
		return new String((byte[]) value, StandardCharsets.UTF_8);
	}

	private static byte @Nullable [] nullableBytes(@Nullable Object value) {
		return (value instanceof byte[] bytes) ? bytes : null;
	}

	private static int attemptsOf(byte @Nullable [] stored) {
		try {
			return (stored != null) ? Integer.parseInt(text(stored)) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/** A due time as Redis keeps it (milliseconds, perhaps with a fraction), to the microsecond. */
	private static Instant instantOf(Object score) {
		long micros = new BigDecimal(text(score)).movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact();
		return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
	}

	private static long number(Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		return Long.parseLong(text(value));
	}

}
