package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.attemptsOf;
import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.instantOf;
import static io.github.delayqueue.redis.internal.Replies.nullableBytes;
import static io.github.delayqueue.redis.internal.Replies.nullableText;
import static io.github.delayqueue.redis.internal.Replies.number;
import static io.github.delayqueue.redis.internal.Replies.text;

/**
 * How a topic's messages are read without changing them: one by id, the waiting ones a page at a time, the counts by
 * state and by due time; each one script call on the topic's keys (a due count over many pages, several). The reads
 * of {@link MessageOperations}.
 */
final class MessageReads {

	private static final Script STATS = Script.load("stats");

	private static final Script LOOKUP = Script.load("lookup");

	private static final Script WAITING = Script.load("waiting");

	private static final byte[] NONE = bytes("");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final @Nullable ReactiveScriptExecutor reactiveScripts;

	/** The most pages one call of {@link #countDue} walks (a few milliseconds of Redis time for a thousand). */
	private volatile int pagesPerCount = 1000;

	MessageReads(TopicKeys keys, ScriptExecutor scripts, @Nullable ReactiveScriptExecutor reactiveScripts) {
		this.keys = keys;
		this.scripts = scripts;
		this.reactiveScripts = reactiveScripts;
	}

	/** The most pages one call of {@link #countDue} walks: tests make a count span several calls with few pages. */
	void setPagesPerCount(int pagesPerCount) {
		Assert.isTrue(pagesPerCount >= 1, "A count walks at least one page a call");
		this.pagesPerCount = pagesPerCount;
	}

	/**
	 * The key and arguments of a call about one message (cancel, look-up): the id and its bucket hash (computed here,
	 * so that the script need not).
	 * @param pending the topic's pending key
	 * @param id the message's id
	 * @return the call's key and arguments
	 */
	static byte[][] withHash(byte[] pending, String id) {
		byte[] bytes = bytes(id);
		return new byte[][] { pending, bytes, new BucketHash().hash(bytes) };
	}

	/**
	 * Finds one message by id, in whatever state it is.
	 * @param topic the topic
	 * @param id the id
	 * @return what is stored for it, or {@code null} if no message has the id
	 */
	@Nullable StoredEntry lookup(String topic, String id) {
		return entryOf(id, this.scripts.run(LOOKUP, ReturnType.MULTI, withHash(this.keys.pending(topic), id)));
	}

	/**
	 * {@link #lookup(String, String)} without blocking.
	 * @param topic the topic
	 * @param id the id
	 * @return what is stored for it, or {@code null} if no message has the id, once Redis replied
	 * @since 1.0.0
	 */
	CompletableFuture<@Nullable StoredEntry> lookupAsync(String topic, String id) {
		ReactiveScriptExecutor reactive = ReactiveScriptExecutor.required(this.reactiveScripts);
		return reactive.<List<?>>run(LOOKUP, ReturnType.MULTI, withHash(this.keys.pending(topic), id))
			.thenApply((reply) -> entryOf(id, reply));
	}

	private static @Nullable StoredEntry entryOf(String id, List<?> reply) {
		String state = text(reply.get(0));
		if (state.isEmpty()) {
			return null;
		}
		StoredEntry.State entryState = switch (state) {
			case "pending" -> StoredEntry.State.WAITING;
			case "leased" -> StoredEntry.State.LEASED;
			default -> StoredEntry.State.DEAD;
		};
		Instant at = (entryState == StoredEntry.State.DEAD) ? Instant.ofEpochMilli(number(reply.get(1)))
				: instantOf(reply.get(1));
		return new StoredEntry(id, entryState, at, attemptsOf(nullableBytes(reply.get(2))),
				nullableText(reply.get(3)), StoredMessage.decode(nullableBytes(reply.get(4))),
				StoredForms.expiry(nullableBytes(reply.get(5))), number(reply.get(6)) == 1L);
	}


	/**
	 * Lists waiting messages (scheduled or waiting for a retry) by due time, then id, a page at a time.
	 * @param topic the topic
	 * @param from the earliest due time listed, or {@code null}
	 * @param to the latest due time listed, or {@code null}
	 * @param after the position after which the page starts (the last entry of the previous page), or {@code null}
	 * for the first page
	 * @param limit the page size, at most {@value RedisMessageStore#CHUNK_SIZE}
	 * @return the page, in order
	 */
	List<StoredEntry> waiting(String topic, @Nullable Instant from, @Nullable Instant to,
			@Nullable Position after, int limit) {
		Assert.isTrue(limit >= 1 && limit <= RedisMessageStore.CHUNK_SIZE,
				() -> "Limit must be between 1 and " + RedisMessageStore.CHUNK_SIZE + ", but was " + limit);
		List<?> reply = this.scripts.run(WAITING, ReturnType.MULTI, this.keys.pending(topic),
				(from != null) ? bytes(Position.score(from)) : bytes("-inf"),
				(to != null) ? bytes(Position.score(to)) : bytes("+inf"),
				(after != null) ? bytes(after.score()) : NONE, (after != null) ? bytes(after.id()) : NONE,
				bytes(limit));
		List<StoredEntry> entries = new ArrayList<>(reply.size() / 5);
		for (int i = 0; i + 4 < reply.size(); i += 5) {
			String id = text(reply.get(i));
			entries.add(new StoredEntry(id, StoredEntry.State.WAITING, instantOf(reply.get(i + 1)),
					attemptsOf(nullableBytes(reply.get(i + 2))), null,
					StoredMessage.decode(nullableBytes(reply.get(i + 3))),
					StoredForms.expiry(nullableBytes(reply.get(i + 4))),
					false, text(reply.get(i + 1))));
		}
		return entries;
	}


	/**
	 * Counts a topic's messages by state, and finds the next due time, at one instant.
	 * @param topic the topic
	 * @return the counts
	 */
	TopicCounts stats(String topic) {
		return countsOf(this.scripts.run(STATS, ReturnType.MULTI, this.keys.pending(topic)));
	}

	/** {@link #stats(String)} without blocking (the partition check of a producer that does not block). */
	CompletableFuture<TopicCounts> statsAsync(String topic) {
		return ReactiveScriptExecutor.required(this.reactiveScripts).<List<?>>run(STATS, ReturnType.MULTI, this.keys.pending(topic))
			.thenApply(MessageReads::countsOf);
	}

	private static TopicCounts countsOf(List<?> reply) {
		byte[] next = nullableBytes(reply.get(4));
		Instant nextDueAt = (next != null) ? instantOf(next) : null;
		return new TopicCounts(number(reply.get(1)), number(reply.get(0)), number(reply.get(2)), number(reply.get(3)),
				nextDueAt, number(reply.get(5)));
	}


	/**
	 * Counts a topic's waiting messages (scheduled or waiting for a retry) by when they fall due, in consecutive
	 * windows, at one instant: one script call that runs one {@code ZCOUNT} per window (O(log n) each) and reads no
	 * message. In a topic whose messages wait in pages (stored format 5) it also counts each page due before the last
	 * edge, at most a thousand pages a call (a few milliseconds of Redis time): a count that spans more takes further
	 * calls, each a count at its own instant. Window {@code k} holds the messages due at or after {@code edges[k]} and before {@code edges[k + 1]}, so
	 * a message due exactly on an edge is counted once, in the window the edge starts. Edges are taken to the
	 * microsecond, as due times are kept.
	 * @param topic the topic (or a partition's name)
	 * @param edges the windows' edges, strictly ascending: at least 2, at most {@value MessageOperations#MAX_WINDOWS} + 1
	 * @return the counts: before the first edge, per window, and at or after the last edge
	 * @since 1.0.0
	 */
	DueCounts countDue(String topic, List<Instant> edges) {
		DueCount count = dueCount(topic, edges);
		while (!count.done()) {
			count.step(this.pagesPerCount);
		}
		return count.result();
	}

	/** A {@link #countDue} to step one script call at a time. */
	DueCount dueCount(String topic, List<Instant> edges) {
		return new DueCount(this.keys, this.scripts, topic, edges);
	}

}
