package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.TopicStats;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.connection.RedisConnectionCommands;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.util.Assert;
import org.springframework.util.StreamUtils;

/**
 * The atomic operations on a topic's Redis keys, each one Lua script run with {@code EVALSHA} (falling back to
 * {@code EVAL} once per script and server). "Now" is always the Redis server's clock. Used by
 * {@link RedisDelayedQueue} and by the listener container; applications use {@link io.github.delayqueue.DelayedQueue}.
 * <p>
 * Arguments are not validated here: callers pass validated topics and ids. Scripts are fixed resources; no
 * script text is ever built from input.
 */
@SuppressWarnings("rawtypes")
public class RedisMessageStore {

	/** The most messages one script call writes or deletes, so no single call blocks Redis for long. */
	public static final int CHUNK_SIZE = 1000;

	private static final byte[] EMPTY = new byte[0];

	private static final RedisScript<List> SCHEDULE = script("schedule", List.class);

	private static final RedisScript<Long> CANCEL = script("cancel", Long.class);

	private static final RedisScript<Long> RESCHEDULE = script("reschedule", Long.class);

	private static final RedisScript<List> CLAIM = script("claim", List.class);

	private static final RedisScript<Long> ACK = script("ack", Long.class);

	private static final RedisScript<Long> FAIL = script("fail", Long.class);

	private static final RedisScript<Long> EXTEND = script("extend", Long.class);

	private static final RedisScript<Long> RELEASE = script("release", Long.class);

	private static final RedisScript<List> STATS = script("stats", List.class);

	private static final RedisScript<List> DEAD_LIST = script("dead-list", List.class);

	private static final RedisScript<Long> DEAD_REPLAY = script("dead-replay", Long.class);

	private static final RedisScript<Long> DEAD_PURGE = script("dead-purge", Long.class);

	private final RedisTemplate<String, byte[]> template;

	private final String keyPrefix;

	private final DeadLetterPolicy deadLetterPolicy;

	/**
	 * Creates a store.
	 * @param connectionFactory the Redis connection factory
	 * @param keyPrefix the prefix of every key, such as {@code dq}
	 * @param deadLetterPolicy the bounds of each topic's dead letters
	 */
	public RedisMessageStore(RedisConnectionFactory connectionFactory, String keyPrefix,
			DeadLetterPolicy deadLetterPolicy) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		Assert.isTrue(keyPrefix != null && !keyPrefix.isBlank() && !keyPrefix.contains("{")
				&& !keyPrefix.contains("}"), () -> "Key prefix must not be blank or contain braces: " + keyPrefix);
		Assert.notNull(deadLetterPolicy, "DeadLetterPolicy must not be null");
		this.template = new RedisTemplate<>();
		this.template.setConnectionFactory(connectionFactory);
		this.template.setKeySerializer(RedisSerializer.string());
		this.template.setValueSerializer(RedisSerializer.byteArray());
		this.template.setHashKeySerializer(RedisSerializer.string());
		this.template.setHashValueSerializer(RedisSerializer.byteArray());
		this.template.afterPropertiesSet();
		this.keyPrefix = keyPrefix;
		this.deadLetterPolicy = deadLetterPolicy;
	}

	/**
	 * Prefix of every key this store uses.
	 * @return the prefix
	 */
	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * The keys of a topic.
	 * @param topic the topic
	 * @return its keys
	 */
	public TopicKeys keys(String topic) {
		return TopicKeys.of(this.keyPrefix, topic);
	}

	/**
	 * Adds topics to the set of known topics ({@code <prefix>:topics}), which metrics and the actuator endpoint
	 * list. One command outside the topics' slots; callers send it once per topic per process.
	 * @param topics the topics
	 */
	public void registerTopics(Collection<String> topics) {
		if (!topics.isEmpty()) {
			this.template.execute((RedisCallback<Long>) (connection) -> connection.setCommands()
				.sAdd(bytes(topicsKey()), topics.stream().map(RedisMessageStore::bytes).toArray(byte[][]::new)));
		}
	}

	/**
	 * The known topics: every topic scheduled to or consumed from with this key prefix.
	 * @return the topics, sorted
	 */
	public Set<String> knownTopics() {
		Set<byte[]> members = this.template
			.execute((RedisCallback<Set<byte[]>>) (connection) -> connection.setCommands().sMembers(bytes(topicsKey())));
		Set<String> topics = new TreeSet<>();
		if (members != null) {
			members.forEach((member) -> topics.add(toText(member)));
		}
		return topics;
	}

	private String topicsKey() {
		return this.keyPrefix + ":topics";
	}

	/**
	 * When the earliest waiting message of a topic is due.
	 * @param topic the topic
	 * @return the due time on the Redis clock, or {@code null} if nothing waits
	 */
	public @Nullable Instant nextDueAt(String topic) {
		Set<ZSetOperations.TypedTuple<byte[]>> head = this.template.opsForZSet()
			.rangeWithScores(keys(topic).due(), 0, 0);
		if (head == null || head.isEmpty()) {
			return null;
		}
		Double score = head.iterator().next().getScore();
		return (score != null) ? Instant.ofEpochMilli(score.longValue()) : null;
	}

	/**
	 * Checks that Redis answers.
	 * @return the reply to {@code PING}
	 */
	public String ping() {
		String pong = this.template.execute(RedisConnectionCommands::ping);
		return (pong != null) ? pong : "";
	}

	/**
	 * Stores messages of one topic that do not exist yet, atomically per chunk of {@value #CHUNK_SIZE}.
	 * @param topic the topic
	 * @param messages the messages
	 * @return per message, whether it was stored ({@code false}: its id existed)
	 */
	public List<Boolean> schedule(String topic, List<NewMessage> messages) {
		TopicKeys keys = keys(topic);
		List<Boolean> stored = new ArrayList<>(messages.size());
		for (int from = 0; from < messages.size(); from += CHUNK_SIZE) {
			List<NewMessage> chunk = messages.subList(from, Math.min(messages.size(), from + CHUNK_SIZE));
			List<Object> args = new ArrayList<>(1 + chunk.size() * 4);
			args.add(bytes(keys.wake()));
			for (NewMessage message : chunk) {
				args.add(bytes(message.id()));
				args.add(bytes(message.due().kind()));
				args.add(bytes(Long.toString(message.due().millis())));
				args.add(message.envelope());
			}
			List<?> result = execute(SCHEDULE, List.of(keys.msgs(), keys.due()), args);
			for (Object flag : result) {
				stored.add(toLong(flag) == 1L);
			}
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
		TopicKeys keys = keys(topic);
		return execute(CANCEL, List.of(keys.msgs(), keys.due(), keys.attempts(), keys.errors()),
				List.of(bytes(id))) == 1L;
	}

	/**
	 * Moves the due time of a waiting message.
	 * @param topic the topic
	 * @param id the message id
	 * @param due the new due time
	 * @return {@code true} if it was waiting and has moved
	 */
	public boolean reschedule(String topic, String id, DueTime due) {
		TopicKeys keys = keys(topic);
		return execute(RESCHEDULE, List.of(keys.due()), List.of(bytes(id), bytes(due.kind()),
				bytes(Long.toString(due.millis())), bytes(keys.wake()))) == 1L;
	}

	/**
	 * Returns expired leases to the due set, then claims up to {@code limit} due messages with a lease.
	 * @param topic the topic
	 * @param limit the most messages to claim (0 to only learn the next due time)
	 * @param leaseMillis the lease, in milliseconds
	 * @param maxAttempts the most attempts; a message whose next attempt would exceed it goes to the dead letters
	 * @return the claimed messages and the delay to the next due message
	 */
	public ClaimResult claim(String topic, int limit, long leaseMillis, int maxAttempts) {
		TopicKeys keys = keys(topic);
		List<?> result = execute(CLAIM, keys.all(),
				List.of(bytes(Integer.toString(limit)), bytes(Long.toString(leaseMillis)),
						bytes(Integer.toString(maxAttempts)), bytes(Long.toString(this.deadLetterPolicy.maxCount())),
						bytes(Long.toString(this.deadLetterPolicy.maxAge().toMillis()))));
		long now = toLong(result.get(0));
		long next = toLong(result.get(1));
		if (result.size() == 2) {
			return new ClaimResult(now, Collections.emptyList(), next);
		}
		List<ClaimedMessage> messages = new ArrayList<>((result.size() - 2) / 4);
		for (int i = 2; i + 3 < result.size(); i += 4) {
			messages.add(new ClaimedMessage(toText(result.get(i)), toLong(result.get(i + 1)),
					(int) toLong(result.get(i + 2)), (byte[]) result.get(i + 3)));
		}
		return new ClaimResult(now, messages, next);
	}

	/**
	 * Deletes delivered messages; a delivery that is no longer current is ignored.
	 * @param topic the topic
	 * @param deliveries the deliveries to acknowledge
	 * @return how many messages were deleted
	 */
	public long ack(String topic, List<Delivery> deliveries) {
		TopicKeys keys = keys(topic);
		long acked = 0;
		for (int from = 0; from < deliveries.size(); from += CHUNK_SIZE) {
			List<Delivery> chunk = deliveries.subList(from, Math.min(deliveries.size(), from + CHUNK_SIZE));
			acked += execute(ACK, List.of(keys.msgs(), keys.inflight(), keys.attempts(), keys.errors()),
					deliveryArgs(null, chunk));
		}
		return acked;
	}

	/**
	 * Schedules another attempt of a failed delivery after a delay.
	 * @param topic the topic
	 * @param delivery the failed delivery
	 * @param delayMillis the delay before the next attempt
	 * @param error the error to record
	 * @return {@code true} if the retry was scheduled; {@code false} if the delivery was no longer current
	 */
	public boolean retry(String topic, Delivery delivery, long delayMillis, String error) {
		return fail(topic, delivery, "retry", delayMillis, error) == 1L;
	}

	/**
	 * Moves the message of a failed delivery to the dead letters.
	 * @param topic the topic
	 * @param delivery the failed delivery
	 * @param error the error to record
	 * @return {@code true} if it was moved; {@code false} if the delivery was no longer current
	 */
	public boolean bury(String topic, Delivery delivery, String error) {
		return fail(topic, delivery, "bury", 0, error) == 2L;
	}

	private long fail(String topic, Delivery delivery, String mode, long delayMillis, String error) {
		TopicKeys keys = keys(topic);
		return execute(FAIL, keys.all(),
				List.of(bytes(delivery.id()), bytes(Integer.toString(delivery.attempt())), bytes(mode),
						bytes(Long.toString(delayMillis)), bytes(error),
						bytes(Long.toString(this.deadLetterPolicy.maxCount())),
						bytes(Long.toString(this.deadLetterPolicy.maxAge().toMillis())), bytes(keys.wake())));
	}

	/**
	 * Extends the leases of current deliveries.
	 * @param topic the topic
	 * @param deliveries the deliveries whose handlers are running
	 * @param leaseMillis the new lease from now
	 * @return how many leases were extended
	 */
	public long extend(String topic, List<Delivery> deliveries, long leaseMillis) {
		TopicKeys keys = keys(topic);
		long extended = 0;
		for (int from = 0; from < deliveries.size(); from += CHUNK_SIZE) {
			List<Delivery> chunk = deliveries.subList(from, Math.min(deliveries.size(), from + CHUNK_SIZE));
			extended += execute(EXTEND, List.of(keys.inflight(), keys.attempts()),
					deliveryArgs(bytes(Long.toString(leaseMillis)), chunk));
		}
		return extended;
	}

	/**
	 * Hands unfinished deliveries back: due at once, their attempt not counted.
	 * @param topic the topic
	 * @param deliveries the unfinished deliveries
	 * @return how many were handed back
	 */
	public long release(String topic, List<Delivery> deliveries) {
		TopicKeys keys = keys(topic);
		long released = 0;
		for (int from = 0; from < deliveries.size(); from += CHUNK_SIZE) {
			List<Delivery> chunk = deliveries.subList(from, Math.min(deliveries.size(), from + CHUNK_SIZE));
			released += execute(RELEASE, List.of(keys.due(), keys.inflight(), keys.attempts()),
					deliveryArgs(bytes(keys.wake()), chunk));
		}
		return released;
	}

	/**
	 * Counts a topic's messages by state.
	 * @param topic the topic
	 * @return the counts
	 */
	public TopicStats stats(String topic) {
		TopicKeys keys = keys(topic);
		List<?> result = execute(STATS, List.of(keys.due(), keys.inflight(), keys.dead()), List.of());
		return new TopicStats(topic, toLong(result.get(1)), toLong(result.get(0)), toLong(result.get(2)),
				toLong(result.get(3)));
	}

	/**
	 * Lists dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit how many at most
	 * @return the dead letters
	 */
	public List<DeadLetter> deadLetters(String topic, int offset, int limit) {
		TopicKeys keys = keys(topic);
		List<?> result = execute(DEAD_LIST, List.of(keys.msgs(), keys.dead(), keys.attempts(), keys.errors()),
				List.of(bytes(Integer.toString(offset)), bytes(Integer.toString(limit))));
		List<DeadLetter> letters = new ArrayList<>(result.size() / 5);
		for (int i = 0; i + 4 < result.size(); i += 5) {
			String id = toText(result.get(i));
			Instant diedAt = Instant.ofEpochMilli(toLong(result.get(i + 1)));
			int attempts = (result.get(i + 2) != null) ? (int) toLong(result.get(i + 2)) : 0;
			String error = (result.get(i + 3) != null) ? toText(result.get(i + 3)) : null;
			byte[] stored = (result.get(i + 4) != null) ? (byte[]) result.get(i + 4) : EMPTY;
			Instant createdAt = null;
			Map<String, String> headers = Collections.emptyMap();
			byte[] payload = stored;
			try {
				Envelope envelope = Envelope.decode(stored);
				createdAt = envelope.createdAt();
				headers = envelope.headers();
				payload = envelope.payload();
			}
			catch (MalformedEnvelopeException ex) {
				// shown as stored
			}
			letters.add(new DeadLetter(id, topic, attempts, error, diedAt, createdAt, headers, payload));
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
		return replay(topic, id) == 1L;
	}

	/**
	 * Makes every dead letter of a topic due at once, in chunks.
	 * @param topic the topic
	 * @return how many were replayed
	 */
	public long replayDeadLetters(String topic) {
		return drain(() -> replay(topic, ""));
	}

	private long replay(String topic, String id) {
		TopicKeys keys = keys(topic);
		return execute(DEAD_REPLAY, List.of(keys.due(), keys.dead(), keys.attempts(), keys.errors()),
				List.of(bytes(keys.wake()), bytes(id), bytes(Integer.toString(CHUNK_SIZE))));
	}

	/**
	 * Deletes one dead letter.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is gone
	 */
	public boolean purgeDeadLetter(String topic, String id) {
		return purge(topic, id) == 1L;
	}

	/**
	 * Deletes every dead letter of a topic, in chunks.
	 * @param topic the topic
	 * @return how many were deleted
	 */
	public long purgeDeadLetters(String topic) {
		return drain(() -> purge(topic, ""));
	}

	private long purge(String topic, String id) {
		TopicKeys keys = keys(topic);
		return execute(DEAD_PURGE, List.of(keys.msgs(), keys.dead(), keys.attempts(), keys.errors()),
				List.of(bytes(id), bytes(Integer.toString(CHUNK_SIZE))));
	}

	private static long drain(java.util.function.LongSupplier chunk) {
		long total = 0;
		long n;
		do {
			n = chunk.getAsLong();
			total += n;
		}
		while (n == CHUNK_SIZE);
		return total;
	}

	private static List<Object> deliveryArgs(byte[] first, List<Delivery> deliveries) {
		List<Object> args = new ArrayList<>(1 + deliveries.size() * 2);
		if (first != null) {
			args.add(first);
		}
		for (Delivery delivery : deliveries) {
			args.add(bytes(delivery.id()));
			args.add(bytes(Integer.toString(delivery.attempt())));
		}
		return args;
	}

	@SuppressWarnings("unchecked")
	private <T> T execute(RedisScript<T> script, List<String> keys, List<Object> args) {
		T result = this.template.execute(script, RedisSerializer.byteArray(),
				(RedisSerializer<T>) RedisSerializer.byteArray(), keys, args.toArray());
		Assert.state(result != null, () -> "Redis returned no result for a delayqueue script");
		return result;
	}

	/**
	 * A script, read once. Its text is held as a string: a script made from a resource checks the resource's
	 * modification time on every call (a file-system or jar look-up under a lock), which would cost more than
	 * the Redis call itself on the hot path.
	 */
	private static <T> RedisScript<T> script(String name, Class<T> resultType) {
		ClassPathResource resource = new ClassPathResource("io/github/delayqueue/redis/" + name + ".lua");
		try (InputStream in = resource.getInputStream()) {
			return RedisScript.of(StreamUtils.copyToString(in, StandardCharsets.UTF_8), resultType);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read the delayqueue script " + resource, ex);
		}
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	private static String toText(Object value) {
		return new String((byte[]) value, StandardCharsets.UTF_8);
	}

	private static long toLong(Object value) {
		if (value instanceof Number number) {
			return number.longValue();
		}
		return Long.parseLong(toText(value));
	}

	/**
	 * A message to store.
	 *
	 * @param id the message id
	 * @param due when it is due
	 * @param envelope the encoded envelope
	 */
	public record NewMessage(String id, DueTime due, byte[] envelope) {
	}

	/**
	 * A due time: a delay from the Redis clock's now, or an absolute Redis-clock time.
	 *
	 * @param relative whether {@code millis} is a delay rather than an epoch time
	 * @param millis the delay or the epoch milliseconds
	 */
	public record DueTime(boolean relative, long millis) {

		/**
		 * A delay from now.
		 * @param millis the delay
		 * @return the due time
		 */
		public static DueTime in(long millis) {
			return new DueTime(true, millis);
		}

		/**
		 * An absolute time.
		 * @param epochMillis the epoch milliseconds on the Redis clock
		 * @return the due time
		 */
		public static DueTime at(long epochMillis) {
			return new DueTime(false, epochMillis);
		}

		String kind() {
			return this.relative ? "d" : "a";
		}

	}

}
