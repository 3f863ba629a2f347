package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Messages for the store-level tests, and their scheduling straight through a {@link RedisMessageStore}: each
 * message is created now, has no headers and the payload {@code "p"}, and is due after the given delay (counted on
 * the Redis clock when it is stored, as {@link DueTime#in(long)} says).
 */
final class Scheduling {

	private Scheduling() {
	}

	/** A message without a group, of the default priority. */
	static NewMessage message(String id, Duration delay) {
		return message(id, delay, null);
	}

	/** A message without a group, of the default priority, that expires as {@code expiry} says (if not null). */
	static NewMessage message(String id, Duration delay, @Nullable Expiry expiry) {
		return message(id, dueIn(delay), expiry, null, Envelope.DEFAULT_PRIORITY);
	}

	/** A message of a group (or none), of the default priority. */
	static NewMessage message(String id, @Nullable String group, Duration delay) {
		return message(id, Envelope.DEFAULT_PRIORITY, group, delay);
	}

	/** A message of a priority, in a group (or none). */
	static NewMessage message(String id, int priority, @Nullable String group, Duration delay) {
		return message(id, priority, group, dueIn(delay));
	}

	/** A message of a priority, in a group (or none), due as {@code due} says. */
	static NewMessage message(String id, int priority, @Nullable String group, DueTime due) {
		return message(id, due, null, group, priority);
	}

	/**
	 * {@code count} messages of a group (or none), of the default priority, all due after {@code delay}: ids
	 * {@code <prefix>-0}, {@code <prefix>-1}, and so on.
	 */
	static List<NewMessage> many(String prefix, int count, @Nullable String group, Duration delay) {
		return many(prefix, count, Envelope.DEFAULT_PRIORITY, group, delay);
	}

	/**
	 * {@code count} messages of a priority, in a group (or none), all due after {@code delay}: ids
	 * {@code <prefix>-0}, {@code <prefix>-1}, and so on.
	 */
	static List<NewMessage> many(String prefix, int count, int priority, @Nullable String group, Duration delay) {
		List<NewMessage> messages = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			messages.add(message(prefix + "-" + i, priority, group, delay));
		}
		return messages;
	}

	/** Schedules one message, and checks that it was stored (its id was new in the topic). */
	static void schedule(RedisMessageStore store, String topic, NewMessage message) {
		assertThat(store.messages().schedule(topic, List.of(message))).containsExactly(true);
	}

	/**
	 * Schedules messages in calls of at most {@link RedisMessageStore#CHUNK_SIZE}, as the queue does.
	 * @return for each message, whether it was stored (its id was new in the topic)
	 */
	static List<Boolean> scheduleAll(RedisMessageStore store, String topic, List<NewMessage> messages) {
		List<Boolean> stored = new ArrayList<>(messages.size());
		for (int i = 0; i < messages.size(); i += RedisMessageStore.CHUNK_SIZE) {
			stored.addAll(store.messages()
				.schedule(topic, messages.subList(i, Math.min(messages.size(), i + RedisMessageStore.CHUNK_SIZE))));
		}
		return stored;
	}

	private static NewMessage message(String id, DueTime due, @Nullable Expiry expiry, @Nullable String group,
			int priority) {
		return new NewMessage(id, due, Instant.now(), Map.of(), "p".getBytes(StandardCharsets.UTF_8), expiry, group,
				priority);
	}

	private static DueTime dueIn(Duration delay) {
		return DueTime.in(delay.toNanos() / 1000);
	}

}
