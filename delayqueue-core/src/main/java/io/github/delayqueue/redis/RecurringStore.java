package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.util.Assert;

/**
 * Where recurring schedules live in Redis: their definitions, as opaque bytes by name, in one hash
 * ({@code <prefix>:recurring}), and each schedule's cursor (the latest tick stored) in its topic's
 * {@code <prefix>:{<topic>}:recurring} hash, beside the topic's messages, so that one script stores a tick's
 * message and moves the cursor atomically, in one cluster slot. What a definition means is decided above this
 * layer.
 *
 * @since 0.3.0
 */
public class RecurringStore {

	private static final Script TICK = Script.load("tick");

	private static final Script REWIND = Script.load("rewind");

	private final RedisTemplate<byte[], byte[]> template;

	private final String keyPrefix;

	private final byte[] definitionsKey;

	/**
	 * Creates the store.
	 * @param connectionFactory the Redis connection factory
	 * @param keyPrefix the prefix of every key (the message store's)
	 */
	public RecurringStore(RedisConnectionFactory connectionFactory, String keyPrefix) {
		Assert.notNull(connectionFactory, "RedisConnectionFactory must not be null");
		TopicKeys.validatePrefix(keyPrefix);
		this.template = new RedisTemplate<>();
		this.template.setConnectionFactory(connectionFactory);
		this.template.setEnableDefaultSerializer(false);
		this.template.afterPropertiesSet();
		this.keyPrefix = keyPrefix;
		this.definitionsKey = bytes(keyPrefix + ":recurring");
	}

	/**
	 * Stores a definition, replacing the one of the same name.
	 * @param name the schedule's name
	 * @param definition its encoded definition
	 */
	public void put(String name, byte[] definition) {
		execute((connection) -> connection.hashCommands().hSet(this.definitionsKey, bytes(name), definition));
	}

	/**
	 * A definition.
	 * @param name the schedule's name
	 * @return its encoded definition, or {@code null} if there is none
	 */
	public byte @Nullable [] get(String name) {
		return execute((connection) -> connection.hashCommands().hGet(this.definitionsKey, bytes(name)));
	}

	/**
	 * Every definition, by name.
	 * @return the encoded definitions (one command)
	 */
	public Map<String, byte[]> all() {
		Map<byte[], byte[]> entries = execute((connection) -> connection.hashCommands().hGetAll(this.definitionsKey));
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
		Long removed = execute((connection) -> connection.hashCommands().hDel(this.definitionsKey, bytes(name)));
		return removed != null && removed > 0;
	}

	/**
	 * The latest tick stored for a schedule in a topic.
	 * @param partition the store's name of the topic partition the schedule's messages go to
	 * @param name the schedule's name
	 * @return the tick, epoch milliseconds, or {@code null} if none was stored
	 */
	public @Nullable Long cursor(String partition, String name) {
		byte[] raw = execute((connection) -> connection.hashCommands().hGet(cursorKey(partition), bytes(name)));
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
	 * Stores one tick's message unless the schedule's cursor is at or past the tick, and moves the cursor to it:
	 * atomic, so however many instances store the same tick, one does.
	 * @param partition the store's name of the topic partition
	 * @param name the schedule's name
	 * @param message the tick's message, due at the tick ({@link DueTime#at(long)})
	 * @param digest the digest of the definition the tick was computed from: the tick is refused if the schedule's
	 * definition has changed since (see {@link #changed})
	 * @return {@code true} if this call stored it
	 */
	public boolean tick(String partition, String name, NewMessage message, String digest) {
		Assert.isTrue(!message.due().relative(), "A tick is due at an absolute time");
		byte[] envelope = new Envelope(message.createdAt(), message.headers(), message.payload()).encode();
		Long stored = run(TICK, ReturnType.INTEGER, pendingKey(partition), bytes(name),
				bytes(Long.toString(message.due().value())), bytes(message.id()), envelope, bytes(digest));
		return stored != null && stored == 1L;
	}

	/**
	 * Records that a schedule's definition changed: the digest of the definition now stored (ticks computed from
	 * another are refused from now on), and unless {@code reset} is false (a resume), withdraws its ticks that wait
	 * for a time after the Redis clock's now and were never attempted, and sets its cursor to that now.
	 * @param partition the store's name of the topic partition its ticks go to
	 * @param name the schedule's name
	 * @param digest the digest of the definition stored now, or {@code "-"} once removed
	 * @param reset whether to withdraw the waiting ticks and start the cursor afresh
	 * @param nowMillis the caller's now: the cursor starts at the later of it and the Redis clock's
	 * @param waitingIds the ids of the ticks that may wait (those after now are withdrawn)
	 * @return how many waiting ticks were withdrawn
	 */
	public long changed(String partition, String name, String digest, boolean reset, long nowMillis,
			List<String> waitingIds) {
		byte[][] args = new byte[5 + waitingIds.size()][];
		args[0] = pendingKey(partition);
		args[1] = bytes(name);
		args[2] = bytes(digest);
		args[3] = bytes(reset ? "1" : "0");
		args[4] = bytes(Long.toString(nowMillis));
		for (int i = 0; i < waitingIds.size(); i++) {
			args[5 + i] = bytes(waitingIds.get(i));
		}
		Long withdrawn = run(REWIND, ReturnType.INTEGER, args);
		return (withdrawn != null) ? withdrawn : 0;
	}

	private byte[] pendingKey(String partition) {
		return bytes(this.keyPrefix + ":{" + partition + "}:pending");
	}

	private byte[] cursorKey(String partition) {
		return bytes(this.keyPrefix + ":{" + partition + "}:recurring");
	}

	private <T> @Nullable T run(Script script, ReturnType type, byte[]... keysAndArgs) {
		return execute((connection) -> script.run(connection, type, keysAndArgs));
	}

	private <T> @Nullable T execute(RedisCallback<T> action) {
		return this.template.execute(action, true);
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
