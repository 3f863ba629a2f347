package io.github.delayqueue.migration.redisson;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * Reads a Redisson delayed queue page by page, raw bytes through Spring Data Redis, and turns each element into a
 * {@link WaitingMessage} with an id derived from what is stored:
 * <ul>
 * <li>an element of the sorted set (waiting): {@code redisson-} and the SHA-256 of the stored element, random id
 * included, so two offers of the same value are two messages;</li>
 * <li>an element of the destination queue (due, no random id left): {@code redisson-} and the SHA-256 of the value
 * and of how many equal values came before it in the queue.</li>
 * </ul>
 * The same data read again gives the same ids.
 */
final class RedissonQueueReader {

	static final String ID_PREFIX = "redisson-";

	private static final byte[] DUE_MARK = "due".getBytes(StandardCharsets.US_ASCII);

	private final RedisConnectionFactory connectionFactory;

	private final RedissonDelayedQueueKeys keys;

	private final ValueDecoder codec;

	RedissonQueueReader(RedisConnectionFactory connectionFactory, RedissonDelayedQueueKeys keys, ValueDecoder codec) {
		this.connectionFactory = connectionFactory;
		this.keys = keys;
		this.codec = codec;
	}

	/**
	 * How many elements the sorted set and the destination queue hold now.
	 * @return their number
	 */
	long size() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long delayed = connection.zSetCommands().zCard(bytes(this.keys.timeoutSet()));
			Long due = connection.listCommands().lLen(bytes(this.keys.destination()));
			return ((delayed != null) ? delayed : 0) + ((due != null) ? due : 0);
		}
	}

	/**
	 * Waiting elements of the sorted set, in due order.
	 * @param offset rank of the first
	 * @param count how many at most
	 * @return the messages, empty past the end
	 * @throws RedissonMigrationException if one cannot be read with the codec
	 */
	List<WaitingMessage> delayed(long offset, int count) {
		byte[] key = bytes(this.keys.timeoutSet());
		Set<Tuple> tuples;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			tuples = connection.zSetCommands().zRangeWithScores(key, offset, offset + count - 1);
		}
		List<WaitingMessage> messages = new ArrayList<>();
		long rank = offset;
		for (Tuple tuple : (tuples != null) ? tuples : Set.<Tuple>of()) {
			byte[] stored = tuple.getValue();
			Object payload = read(() -> this.codec.payload(StoredElements.value(stored)), this.keys.timeoutSet(),
					rank);
			Instant dueAt = Instant.ofEpochMilli(tuple.getScore().longValue());
			messages.add(new WaitingMessage(ID_PREFIX + sha256(stored), stored, dueAt, payload, this.keys.timeoutSet(),
					rank));
			rank++;
		}
		return messages;
	}

	/**
	 * Due elements of the destination queue, from its head.
	 * @param offset index of the first
	 * @param count how many at most
	 * @param occurrences the equal values seen so far in this pass (updated)
	 * @return the messages, empty past the end
	 * @throws RedissonMigrationException if one cannot be read with the codec
	 */
	List<WaitingMessage> due(long offset, int count, Occurrences occurrences) {
		List<byte[]> values;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			values = connection.listCommands().lRange(bytes(this.keys.destination()), offset, offset + count - 1);
		}
		List<WaitingMessage> messages = new ArrayList<>();
		long index = offset;
		for (byte[] value : (values != null) ? values : List.<byte[]>of()) {
			Object payload = read(() -> this.codec.payload(value), this.keys.destination(), index);
			String valueHash = sha256(value);
			int occurrence = occurrences.next(valueHash);
			byte[] identity = ByteBuffer.allocate(DUE_MARK.length + Integer.BYTES + value.length)
				.put(DUE_MARK)
				.putInt(occurrence)
				.put(value)
				.array();
			messages.add(new WaitingMessage(ID_PREFIX + sha256(identity), value, null, payload,
					this.keys.destination(), index));
			index++;
		}
		return messages;
	}

	private Object read(PayloadReader reader, String key, final long position) {
		try {
			return reader.read();
		}
		catch (IllegalArgumentException ex) {
			throw new RedissonMigrationException("Element " + position + " of " + key + " cannot be read as "
					+ this.codec.simpleName() + ": " + ex.getMessage(), ex);
		}
	}

	static byte[] bytes(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

	private static String sha256(byte[] bytes) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("Every Java runtime has SHA-256", ex);
		}
	}

	/** Reads one payload. */
	@FunctionalInterface
	private interface PayloadReader {

		Object read();

	}

	/** How many times each value has been seen in one pass over the destination queue. */
	static final class Occurrences {

		private final Map<String, Integer> seen = new HashMap<>();

		/**
		 * Counts one more value with this hash.
		 * @param valueHash the value's hash
		 * @return how many equal values came before it
		 */
		int next(String valueHash) {
			return this.seen.merge(valueHash, 1, Integer::sum) - 1;
		}

	}

}
