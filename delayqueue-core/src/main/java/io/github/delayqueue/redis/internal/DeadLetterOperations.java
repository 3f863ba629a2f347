package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;

import org.springframework.data.redis.connection.ReturnType;

import static io.github.delayqueue.redis.internal.Replies.attemptsOf;
import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.nullableBytes;
import static io.github.delayqueue.redis.internal.Replies.nullableText;
import static io.github.delayqueue.redis.internal.Replies.number;
import static io.github.delayqueue.redis.internal.Replies.text;

/**
 * What operators do with a topic's dead letters: list, replay and purge them, one by one or in chunks. Obtained from
 * {@link RedisMessageStore#deadLetters()}.
 *
 * @since 1.0.0
 */
public final class DeadLetterOperations {

	private static final Script DEAD_LIST = Script.load("dead-list");

	private static final Script DEAD_REPLAY = Script.load("dead-replay");

	private static final Script DEAD_PURGE = Script.load("dead-purge");

	private static final byte[] ALL = bytes("");

	private static final byte[] NONE = bytes("");

	/**
	 * The most dead letters one call of a replay or purge of a whole topic handles: with a million dead letters a call
	 * of 250 held Redis for 4 to 5 ms (a replay) and 6 to 9 ms (a purge) on a quiet machine (the benchmark's
	 * production-size scenario), each letter costing a few updates of sorted sets and hashes of a million entries;
	 * 100 keeps each call to a few milliseconds.
	 */
	public static final int CHUNK_SIZE = 100;

	private static final byte[] CHUNK = bytes(CHUNK_SIZE);

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final byte[] deadMaxCount;

	private final byte[] deadMaxAge;

	/** Made by {@link io.github.delayqueue.redis.RedisMessageStore}, on its keys and script runner. */
	public DeadLetterOperations(TopicKeys keys, ScriptExecutor scripts, DeadLetterPolicy deadLetterPolicy) {
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
		return number(this.scripts.runReplicated(DEAD_REPLAY, ReturnType.INTEGER, this.keys.pending(topic), bytes(id),
				CHUNK, NONE)) == 1L;
	}

	/**
	 * Makes every dead letter of a topic due at once, with its attempts reset, in chunks of at most
	 * {@value #CHUNK_SIZE}, oldest first: one script call per chunk, each atomic, so that no call holds
	 * Redis for long however many are dead. The dead letters replayed are those that died before the first chunk ran;
	 * a message that dies meanwhile (a replayed one that fails again, say) is left for the next replay, so the call
	 * ends. A concurrent observer sees the dead letters leave and the waiting messages grow a chunk at a time, and
	 * consumers deliver the first chunks while the later ones are still dead. Interrupted (Redis unreachable, the
	 * application stopping), what was not reached stays dead and a second call replays it; run beside another replay
	 * or purge of the same topic, each dead letter is replayed or deleted once.
	 * @param topic the topic
	 * @return how many were replayed
	 */
	public long replayAll(String topic) {
		return chunked(DEAD_REPLAY, topic);
	}

	/**
	 * Deletes one dead letter.
	 * @param topic the topic
	 * @param id the message id
	 * @return {@code true} if it was dead and is gone
	 */
	public boolean purge(String topic, String id) {
		return number(this.scripts.runReplicated(DEAD_PURGE, ReturnType.INTEGER, this.keys.pending(topic), bytes(id),
				CHUNK, NONE)) == 1L;
	}

	/**
	 * Deletes every dead letter of a topic, in chunks of at most {@value #CHUNK_SIZE}, oldest first:
	 * one script call per chunk, each atomic, so that no call holds Redis for long however many are dead. The dead
	 * letters deleted are those that died before the first chunk ran; those that die meanwhile are left, so the call
	 * ends. A concurrent observer sees the dead letters shrink a chunk at a time. Interrupted, what was not reached
	 * stays and a second call deletes it; run beside another purge or replay of the same topic, each dead letter is
	 * deleted or replayed once.
	 * @param topic the topic
	 * @return how many were deleted
	 */
	public long purgeAll(String topic) {
		return chunked(DEAD_PURGE, topic);
	}

	/**
	 * Runs a chunk script until a chunk comes back short, the first chunk setting the death time the later ones are
	 * bounded by; adds up what they handled.
	 */
	private long chunked(Script script, String topic) {
		byte[] bound = NONE;
		long total = 0;
		long n;
		do {
			List<?> reply = this.scripts.runReplicated(script, ReturnType.MULTI, this.keys.pending(topic), ALL, CHUNK,
					bound);
			n = number(reply.get(0));
			bound = bytes(text(reply.get(1)));
			total += n;
		}
		while (n == CHUNK_SIZE);
		return total;
	}

}
