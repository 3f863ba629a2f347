package io.github.delayqueue.recurring;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RecurringStore;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.core.script.DigestUtils;

/**
 * The schedules' definitions in Redis: reads them, and changes them (define, pause, resume, remove) by compare and
 * set, so that a change made meanwhile by another instance is neither lost nor undone; after each change it tells
 * the store which ticks of the previous definition may wait, so that they do not fire from a definition replaced.
 */
final class ScheduleDefinitions {

	// the schedules' one log category, as before they were split by job
	private static final Logger logger = LoggerFactory.getLogger(RedisRecurringSchedules.class);

	/** The most times a change is tried while other instances change the same schedule. */
	private static final int MAX_ATTEMPTS = 100;

	private final RecurringStore store;

	private final PayloadConverter converter;

	private final TickCursors cursors;

	private Clock clock = Clock.systemUTC();

	ScheduleDefinitions(RecurringStore store, PayloadConverter converter, TickCursors cursors) {
		this.store = store;
		this.converter = converter;
		this.cursors = cursors;
	}

	void setClock(Clock clock) {
		this.clock = clock;
	}

	/**
	 * Defines a schedule, replacing its definition only if it is still the one read (compare and set), so that a
	 * pause made meanwhile by another instance is kept: the definition is read again and keeps the pause.
	 * @param schedule the schedule
	 * @throws IllegalArgumentException if its payload, as the converter writes it, is not JSON text
	 */
	void define(RecurringSchedule schedule) {
		String name = schedule.name();
		byte[] payload = payloadOf(schedule);
		for (int attempt = 1;; attempt++) {
			byte[] current = this.store.get(name);
			StoredDefinition previous = readable(name, current);
			boolean paused = previous != null && previous.paused();
			byte[] stored = StoredDefinition.of(schedule, payload, paused).encode();
			if (this.store.replace(name, current, stored)) {
				this.store.registerTopic(schedule.topic());
				if (previous != null && !previous.topic().equals(schedule.topic())) {
					changed(name, previous, "-", true);
				}
				// the ticks that may wait were computed from the definition replaced, not from this one
				StoredDefinition replaced = (previous != null && previous.topic().equals(schedule.topic())) ? previous
						: StoredDefinition.decode(name, stored);
				changed(name, replaced, digest(stored), true);
				return;
			}
			contended(name, attempt);
		}
	}

	/** After a definition changed under a caller that was changing it: gives up after many attempts. */
	private static void contended(String name, int attempt) {
		if (attempt >= MAX_ATTEMPTS) {
			throw new IllegalStateException("Recurring schedule '" + name + "' was changed by others " + attempt
					+ " times while this instance was changing it; nothing was changed");
		}
	}

	/**
	 * The payload as stored in the definition: JSON text, as given or as the converter writes it.
	 * @throws IllegalArgumentException if the converter does not write JSON (a definition keeps its payload as JSON
	 * text, and could not be read back)
	 */
	private byte[] payloadOf(RecurringSchedule schedule) {
		String json = schedule.payloadJson();
		if (json != null) {
			return json.getBytes(StandardCharsets.UTF_8);
		}
		byte[] written = this.converter.write(Objects.requireNonNull(schedule.payload()));
		if (!StoredDefinition.isJson(written)) {
			throw new IllegalArgumentException("Recurring schedule '" + schedule.name() + "': its payload as "
					+ this.converter.getClass().getName() + " writes it is not JSON text, and a recurring schedule "
					+ "keeps its payload in its definition as JSON text: give the payload as JSON text "
					+ "(payloadJson), or use a PayloadConverter that writes JSON");
		}
		return written;
	}

	/**
	 * Whether Redis holds this definition already (every instance declares the schedules of its configuration).
	 * @param schedule the schedule
	 * @return {@code true} if the stored definition is the same, its pause aside
	 */
	boolean isStored(RecurringSchedule schedule) {
		StoredDefinition stored = readable(schedule.name());
		return stored != null && StoredDefinition.of(schedule, payloadOf(schedule), stored.paused()).equals(stored);
	}

	/**
	 * Pauses or resumes a schedule, only if its definition is still the one read (compare and set), so that a
	 * definition stored meanwhile by another instance is neither lost nor loses the pause.
	 */
	boolean setPaused(String name, boolean paused) {
		for (int attempt = 1;; attempt++) {
			byte[] current = this.store.get(name);
			StoredDefinition definition = readable(name, current);
			if (definition == null) {
				return false;
			}
			byte[] stored = definition.paused(paused).encode();
			if (this.store.replace(name, current, stored)) {
				// resumed, the cursor stays where the pause left it: the ticks missed meanwhile follow the policy
				changed(name, definition, digest(stored), paused);
				return true;
			}
			contended(name, attempt);
		}
	}

	boolean remove(String name) {
		StoredDefinition definition = readable(name);
		boolean removed = this.store.remove(name);
		if (definition != null) {
			changed(name, definition, "-", true);
		}
		return removed;
	}

	Optional<RecurringScheduleInfo> get(String name) {
		StoredDefinition definition = readable(name);
		return (definition != null) ? Optional.of(info(name, definition)) : Optional.empty();
	}

	List<RecurringScheduleInfo> list() {
		List<RecurringScheduleInfo> infos = new ArrayList<>();
		new TreeMap<>(this.store.all()).forEach((name, bytes) -> {
			try {
				infos.add(info(name, StoredDefinition.decode(name, bytes)));
			}
			catch (IllegalStateException ex) {
				logger.warn("Skipping recurring schedule '{}': {}", name, ex.getMessage());
			}
		});
		return infos;
	}

	/**
	 * Tells the store that a schedule's definition changed (see {@link RecurringStore#changed}), naming the ticks
	 * of the previous definition that may wait: those from a second ago up to its cursor.
	 */
	private void changed(String name, StoredDefinition previous, String digest, boolean reset) {
		RecurringSchedule schedule = previous.schedule(name);
		String partition = TickCursors.partitionOf(schedule);
		for (int attempt = 1;; attempt++) {
			List<String> waiting = new ArrayList<>();
			Long cursor = null;
			if (reset) {
				cursor = this.cursors.cursor(schedule);
				Instant tick = schedule.nextTick(this.clock.instant().minusSeconds(1));
				for (int i = 0; tick != null && cursor != null && tick.toEpochMilli() <= cursor
						&& i < DueTicks.MAX_AHEAD; i++) {
					waiting.add(DueTicks.tickId(name, tick));
					tick = schedule.nextTick(tick);
				}
			}
			// refused if another instance stored a tick (computed from the definition before this change) since the
			// cursor was read: that tick would be missed, stay, and be stored again from the new definition
			if (this.store.changed(partition, name, digest, reset, this.clock.millis(), cursor, waiting) >= 0) {
				return;
			}
			contended(name, attempt);
		}
	}

	/** The digest of a stored definition, which the ticks stored from it carry. */
	static String digest(byte[] stored) {
		return DigestUtils.sha1DigestAsHex(new String(stored, StandardCharsets.UTF_8));
	}

	private RecurringScheduleInfo info(String name, StoredDefinition definition) {
		RecurringSchedule schedule = definition.schedule(name);
		Long cursor = this.cursors.current(schedule);
		Instant last = (cursor != null) ? Instant.ofEpochMilli(cursor) : null;
		Instant now = this.clock.instant();
		Instant next = null;
		if (!definition.paused()) {
			next = (last != null && last.isAfter(now)) ? last : schedule.nextTick(now);
		}
		return new RecurringScheduleInfo(name, definition.topic(), schedule.cron(), schedule.every(), schedule.zone(),
				definition.payload(), schedule.missedTicks(), schedule.maxMissed(), definition.paused(), last, next);
	}

	/** The stored definition, or {@code null} if there is none or it cannot be read (it is then replaced). */
	private @Nullable StoredDefinition readable(String name) {
		return readable(name, this.store.get(name));
	}

	private static @Nullable StoredDefinition readable(String name, byte @Nullable [] bytes) {
		if (bytes == null) {
			return null;
		}
		try {
			return StoredDefinition.decode(name, bytes);
		}
		catch (IllegalStateException ex) {
			logger.warn("Recurring schedule '{}' as stored cannot be read: {}", name, ex.getMessage());
			return null;
		}
	}

}
