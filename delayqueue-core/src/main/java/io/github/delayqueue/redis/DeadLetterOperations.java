package io.github.delayqueue.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import org.springframework.data.redis.connection.ReturnType;

import static io.github.delayqueue.redis.Replies.attemptsOf;
import static io.github.delayqueue.redis.Replies.bytes;
import static io.github.delayqueue.redis.Replies.nullableBytes;
import static io.github.delayqueue.redis.Replies.nullableText;
import static io.github.delayqueue.redis.Replies.number;
import static io.github.delayqueue.redis.Replies.text;

/**
 * What operators do with a topic's dead letters: list, replay and purge them, one by one or in chunks. Obtained from
 * {@link RedisMessageStore#deadLetters()}.
 *
 * @since 0.3.0
 */
public final class DeadLetterOperations {

	private static final Script DEAD_LIST = Script.load("dead-list");

	private static final Script DEAD_REPLAY = Script.load("dead-replay");

	private static final Script DEAD_PURGE = Script.load("dead-purge");

	private static final byte[] ALL = bytes("");

	private static final byte[] CHUNK = bytes(RedisMessageStore.CHUNK_SIZE);

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final byte[] deadMaxCount;

	private final byte[] deadMaxAge;

	DeadLetterOperations(TopicKeys keys, ScriptExecutor scripts, DeadLetterPolicy deadLetterPolicy) {
		this.keys = keys;
		this.scripts = scripts;
		this.deadMaxCount = bytes(deadLetterPolicy.maxCount());
		this.deadMaxAge = bytes(deadLetterPolicy.maxAge().toMillis());
	}

	/**
	 * Lists dead letters, oldest first.
	 * @param topic the topic
	 * @param offset how many to skip
	 * @param limit how many at most
	 * @return the dead letters
	 */
	public List<StoredDeadLetter> list(String topic, int offset, int limit) {
		List<?> reply = this.scripts.run(DEAD_LIST, ReturnType.MULTI, this.keys.pending(topic), bytes(offset),
				bytes(limit), this.deadMaxCount, this.deadMaxAge);
		List<StoredDeadLetter> letters = new ArrayList<>(reply.size() / 5);
		for (int i = 0; i + 4 < reply.size(); i += 5) {
			letters.add(new StoredDeadLetter(text(reply.get(i)), attemptsOf(nullableBytes(reply.get(i + 2))),
					nullableText(reply.get(i + 3)), Instant.ofEpochMilli(number(reply.get(i + 1))),
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
	public boolean replay(String topic, String id) {
		return replay(topic, bytes(id)) == 1L;
	}

	/**
	 * Makes every dead letter of a topic due at once, in chunks.
	 * @param topic the topic
	 * @return how many were replayed
	 */
	public long replayAll(String topic) {
		return repeat(() -> replay(topic, ALL));
	}

	private long replay(String topic, byte[] id) {
		return number(this.scripts.runReplicated(DEAD_REPLAY, ReturnType.INTEGER, this.keys.pending(topic), id, CHUNK));
	}

	/**
	 * Deletes one dead letter.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is gone
	 */
	public boolean purge(String topic, String id) {
		return purge(topic, bytes(id)) == 1L;
	}

	/**
	 * Deletes every dead letter of a topic, in chunks.
	 * @param topic the topic
	 * @return how many were deleted
	 */
	public long purgeAll(String topic) {
		return repeat(() -> purge(topic, ALL));
	}

	private long purge(String topic, byte[] id) {
		return number(this.scripts.runReplicated(DEAD_PURGE, ReturnType.INTEGER, this.keys.pending(topic), id, CHUNK));
	}

	/** Runs a call that handles at most a chunk until it handles less, adding up what it handled. */
	private static long repeat(LongSupplier chunk) {
		long total = 0;
		long n;
		do {
			n = chunk.getAsLong();
			total += n;
		}
		while (n == RedisMessageStore.CHUNK_SIZE);
		return total;
	}

}
