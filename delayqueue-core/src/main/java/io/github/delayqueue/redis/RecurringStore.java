package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.redis.internal.KnownTopics;
import io.github.delayqueue.redis.internal.MessageOperations;
import io.github.delayqueue.redis.internal.Script;
import io.github.delayqueue.redis.internal.ScriptExecutor;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.flag;
import static io.github.delayqueue.redis.internal.Replies.nullableText;

/**
 * Where recurring schedules live in Redis: their definitions, as opaque bytes by name, in one hash
 * ({@link TopicKeys}: {@code <prefix>:recurring}), and each schedule's cursor (the latest tick stored) in the
 * {@code recurring} hash of its topic's first partition, beside the topic's messages, so that one script stores a
 * tick's message and moves the cursor atomically, in one cluster slot (see
 * {@link MessageOperations#tick(String, String, NewMessage, String)}). What a definition means is decided above this
 * layer.
 *
 * @since 1.0.0
 */
public class RecurringStore {

	private static final Script REWIND = Script.load("rewind");

	private static final Script ADOPT = Script.load("recurring-adopt");

	private static final Script PUT = Script.load("recurring-put");

	private final TopicKeys keys;

	private final ScriptExecutor scripts;

	private final MessageOperations messages;

	private final KnownTopics topics;

	/**
	 * Creates the store beside a message store: the same key prefix and connection.
	 * @param store the message store
	 * @since 1.0.0
	 */
	public RecurringStore(RedisMessageStore store) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		this.keys = store.keys();
		this.scripts = store.scripts();
		this.messages = store.messages();
		this.topics = store.topics();
	}

	/**
	 * Adds the topic of a schedule to the known topics (see {@link RedisMessageStore#topics()}), so that operators'
	 * tools list it before its first tick.
	 * @param topic the topic
	 * @since 1.0.0
	 */
	public void registerTopic(String topic) {
		this.topics.register(List.of(topic));
	}

	/**
	 * Stores a definition, replacing the one of the same name whatever it is.
	 * @param name the schedule's name
	 * @param definition its encoded definition
	 * @see #replace(String, byte[], byte[])
	 */
	public void put(String name, byte[] definition) {
		this.scripts.execute((connection) -> connection.hashCommands()
			.hSet(this.keys.recurringDefinitions(), bytes(name), definition));
	}

	/**
	 * Replaces a definition only if it is still the one read (compare and set, one script on the definitions' key),
	 * so that two instances changing one schedule at once never lose either change: the one refused reads again.
	 * @param name the schedule's name
	 * @param expected the definition read, or {@code null} if there was none
	 * @param definition the new encoded definition
	 * @return {@code true} if it was replaced, {@code false} if the stored definition had changed meanwhile
	 * @since 1.0.0
	 */
	public boolean replace(String name, byte @Nullable [] expected, byte[] definition) {
		Long replaced = this.scripts.run(PUT, ReturnType.INTEGER, this.keys.recurringDefinitions(), bytes(name),
				flag(expected != null), (expected != null) ? expected : new byte[0], definition);
		return replaced == 1L;
	}

	/**
	 * A definition.
	 * @param name the schedule's name
	 * @return its encoded definition, or {@code null} if there is none
	 */
	public byte @Nullable [] get(String name) {
		return this.scripts
			.execute((connection) -> connection.hashCommands().hGet(this.keys.recurringDefinitions(), bytes(name)));
	}

	/**
	 * Every definition, by name.
	 * @return the encoded definitions (one command)
	 */
	public Map<String, byte[]> all() {
		Map<byte[], byte[]> entries = this.scripts
			.execute((connection) -> connection.hashCommands().hGetAll(this.keys.recurringDefinitions()));
		Map<String, byte[]> definitions = new LinkedHashMap<>();
		if (entries != null) {
			entries.forEach((name, definition) -> definitions.put(new String(name, StandardCharsets.UTF_8), definition));
		}
		return definitions;
	}

	/**
	 * Deletes a definition (its cursor stays, so that a schedule defined again under the name does not repeat
	 * ticks it stored).
	 * @param name the schedule's name
	 * @return {@code true} if it existed
	 */
	public boolean remove(String name) {
		Long removed = this.scripts
			.execute((connection) -> connection.hashCommands().hDel(this.keys.recurringDefinitions(), bytes(name)));
		return removed != null && removed > 0;
	}

	/**
	 * The latest tick stored for a schedule in a topic.
	 * @param partition the store's name of the topic partition that keeps the schedule's cursor
	 * @param name the schedule's name
	 * @return the tick, epoch milliseconds, or {@code null} if none was stored
	 */
	public @Nullable Long cursor(String partition, String name) {
		byte[] raw = this.scripts.execute(
				(connection) -> connection.hashCommands().hGet(this.keys.topicKey(partition, "recurring"), bytes(name)));
		if (raw == null) {
			return null;
		}
		try {
			return Long.parseLong(new String(raw, StandardCharsets.UTF_8));
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Records that a schedule's definition changed: the digest of the definition now stored (ticks computed from
	 * another are refused from now on), and unless {@code reset} is false (a resume), withdraws its ticks that wait
	 * for a time after the Redis clock's now and were never attempted, and sets its cursor to that now (or to a later
	 * tick of it that stays, leased ahead of its time).
	 * @param partition the store's name of the topic partition that keeps the schedule's cursor
	 * @param name the schedule's name
	 * @param digest the digest of the definition stored now, or {@code "-"} once removed
	 * @param reset whether to withdraw the waiting ticks and start the cursor afresh
	 * @param nowMillis the caller's now: the cursor starts at the later of it and the Redis clock's
	 * @param waitingIds the ids of the ticks that may wait ({@code <name>@<tick millis>}; those after now are
	 * withdrawn)
	 * @return how many waiting ticks were withdrawn
	 */
	public long changed(String partition, String name, String digest, boolean reset, long nowMillis,
			List<String> waitingIds) {
		return rewind(partition, name, digest, reset, nowMillis, "*", waitingIds);
	}

	/**
	 * As {@link #changed(String, String, String, boolean, long, List)}, but a reset only if the schedule's cursor is
	 * still the one the waiting ids were computed up to: if a tick was stored since (by an instance that read the
	 * definition before it changed), nothing changes and the caller reads the cursor again.
	 * @param cursorRead the cursor the waiting ids were computed up to, or {@code null} if none was stored
	 * @return how many waiting ticks were withdrawn, or {@code -1} if the cursor has moved (nothing changed)
	 * @since 1.0.0
	 */
	public long changed(String partition, String name, String digest, boolean reset, long nowMillis,
			@Nullable Long cursorRead, List<String> waitingIds) {
		return rewind(partition, name, digest, reset, nowMillis, (cursorRead != null) ? cursorRead.toString() : "",
				waitingIds);
	}

	private long rewind(String partition, String name, String digest, boolean reset, long nowMillis,
			String cursorRead, List<String> waitingIds) {
		byte[][] args = new byte[6 + waitingIds.size()][];
		args[0] = this.keys.pending(partition);
		args[1] = bytes(name);
		args[2] = bytes(digest);
		args[3] = flag(reset);
		args[4] = bytes(nowMillis);
		args[5] = bytes(cursorRead);
		for (int i = 0; i < waitingIds.size(); i++) {
			args[6 + i] = bytes(waitingIds.get(i));
		}
		Long withdrawn = this.scripts.run(REWIND, ReturnType.INTEGER, args);
		return withdrawn;
	}

	/**
	 * Hands a schedule's cursor over from the partition where builds before 0.3.0 kept it (the partition of the
	 * schedule's name by the instance's own count) to the partition that keeps it now, unless that one has one: the
	 * old partition's definition digest is marked as moved first (so an instance of an earlier build stores no more
	 * ticks there), then its digest and cursor are copied, if the new partition has none.
	 * @param from the store's name of the partition the cursor was kept in
	 * @param to the store's name of the partition that keeps it now
	 * @param name the schedule's name
	 * @return {@code true} if a cursor was handed over
	 * @since 1.0.0
	 */
	public boolean adopt(String from, String to, String name) {
		List<?> reply = this.scripts.run(ADOPT, ReturnType.MULTI, this.keys.pending(from), bytes(name));
		String digest = nullableText(reply.get(0));
		String cursor = nullableText(reply.get(1));
		byte[] key = this.keys.topicKey(to, "recurring");
		if (digest != null) {
			this.scripts.execute((connection) -> connection.hashCommands().hSetNX(key, bytes(name + ":def"), bytes(digest)));
		}
		if (cursor != null) {
			Boolean set = this.scripts
				.execute((connection) -> connection.hashCommands().hSetNX(key, bytes(name), bytes(cursor)));
			return Boolean.TRUE.equals(set);
		}
		return false;
	}

}
