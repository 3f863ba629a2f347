package io.github.delayqueue.recurring;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RecurringStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fires what is due: for every schedule that is not paused, works out its ticks (those missed since its cursor, as
 * its {@link MissedTicks} policy says, and those within the look-ahead) and stores each tick's message through the
 * queue, which stores a tick only if the schedule's cursor is before it, so each tick fires once however many
 * instances do this.
 */
final class DueTicks {

	// the schedules' one log category, as before they were split by job
	private static final Logger logger = LoggerFactory.getLogger(RedisRecurringSchedules.class);

	private static final Duration MISSED_WINDOW = Duration.ofDays(31);

	private static final int MAX_TICKS_COUNTED = 1_000_000;

	/** The most ticks stored ahead at once. */
	static final int MAX_AHEAD = 1000;

	private final RecurringStore store;

	private final RedisDelayedQueue queue;

	private final TickCursors cursors;

	private Duration pollInterval = RedisRecurringSchedules.DEFAULT_POLL_INTERVAL;

	private Clock clock = Clock.systemUTC();

	DueTicks(RecurringStore store, RedisDelayedQueue queue, TickCursors cursors) {
		this.store = store;
		this.queue = queue;
		this.cursors = cursors;
	}

	void setPollInterval(Duration pollInterval) {
		this.pollInterval = pollInterval;
	}

	void setClock(Clock clock) {
		this.clock = clock;
	}

	/**
	 * Fires what is due: for every schedule that is not paused, the ticks missed since its last one (as its policy
	 * says) and the next tick if it falls within the look-ahead.
	 * @return how many tick messages this call stored
	 */
	int fireDue() {
		Instant now = this.clock.instant();
		Instant horizon = now.plus(this.pollInterval.multipliedBy(2));
		int stored = 0;
		for (Map.Entry<String, byte[]> entry : this.store.all().entrySet()) {
			String name = entry.getKey();
			try {
				StoredDefinition definition = StoredDefinition.decode(name, entry.getValue());
				if (!definition.paused()) {
					stored += fire(name, definition, ScheduleDefinitions.digest(entry.getValue()), now, horizon);
				}
			}
			catch (RuntimeException ex) {
				logger.warn("Recurring schedule '{}': could not fire its ticks; trying again in {}", name,
						this.pollInterval, ex);
			}
		}
		return stored;
	}

	private int fire(String name, StoredDefinition definition, String digest, Instant now, Instant horizon) {
		RecurringSchedule schedule = definition.schedule(name);
		Long cursorMillis = this.cursors.cursor(schedule);
		List<Instant> ticks = new ArrayList<>();
		Instant from;
		if (cursorMillis == null) {
			// a new schedule starts with its next tick
			from = now.minusMillis(1);
		}
		else {
			Instant cursor = Instant.ofEpochMilli(cursorMillis);
			ticks.addAll(missed(schedule, cursor, now));
			from = cursor.isAfter(now) ? cursor : now;
		}
		// every tick up to the look-ahead (an interval shorter than the poll has several)
		Instant next = schedule.nextTick(from);
		for (int i = 0; next != null && !next.isAfter(horizon) && i < MAX_AHEAD; i++) {
			ticks.add(next);
			next = schedule.nextTick(next);
		}
		int stored = 0;
		byte[] payload = definition.payload().getBytes(StandardCharsets.UTF_8);
		for (Instant tick : ticks) {
			Map<String, String> headers = new LinkedHashMap<>();
			headers.put(RecurringSchedules.SCHEDULE_HEADER, name);
			headers.put(RecurringSchedules.TICK_HEADER, tick.toString());
			NewMessage message = new NewMessage(tickId(name, tick), DueTime.at(tick.toEpochMilli()), now, headers,
					payload);
			if (this.queue.storeTick(schedule.topic(), name, message, digest) != null) {
				stored++;
			}
		}
		return stored;
	}

	/** How late a tick may be stored and still count as on time: a few polls, at least a second. */
	private Duration lateGrace() {
		Duration polls = this.pollInterval.multipliedBy(4);
		return (polls.compareTo(Duration.ofSeconds(1)) > 0) ? polls : Duration.ofSeconds(1);
	}

	/**
	 * The ticks after the cursor up to now that fire, oldest first. If the cursor is within the grace of now (a poll
	 * delayed by a pause or a slow Redis, while the look-ahead had stored the ticks up to the cursor), none of them
	 * is missed: they all fire, whatever the policy. Otherwise (no instance ran for a while, or the schedule was
	 * paused) the schedule's policy says which: {@link MissedTicks#SKIP} only those within the grace of now.
	 */
	private List<Instant> missed(RecurringSchedule schedule, Instant cursor, Instant now) {
		if (!cursor.isBefore(now)) {
			return List.of();
		}
		Instant late = now.minus(lateGrace());
		if (!cursor.isBefore(late) || schedule.missedTicks() == MissedTicks.SKIP) {
			List<Instant> ticks = new ArrayList<>();
			Instant tick = schedule.nextTick(cursor.isAfter(late) ? cursor : late);
			for (int i = 0; tick != null && !tick.isAfter(now) && i < MAX_AHEAD; i++) {
				ticks.add(tick);
				tick = schedule.nextTick(tick);
			}
			return ticks;
		}
		int keep = (schedule.missedTicks() == MissedTicks.FIRE_ONCE) ? 1 : schedule.maxMissed();
		Instant from = cursor.isBefore(now.minus(MISSED_WINDOW)) ? now.minus(MISSED_WINDOW) : cursor;
		return latestTicks(schedule, from, now, keep);
	}

	/**
	 * The latest {@code keep} ticks after {@code from} up to {@code to}, oldest first. Ticks are only computed
	 * forwards, so they are looked for in a window before {@code to} that doubles until it holds {@code keep} of
	 * them or reaches back to {@code from}: however many ticks an outage missed, this computes about as many as it
	 * keeps, not all of them.
	 */
	static List<Instant> latestTicks(RecurringSchedule schedule, Instant from, Instant to, int keep) {
		Duration every = schedule.every();
		Duration window = (every != null) ? every.multipliedBy(keep) : Duration.ofMinutes(1);
		while (true) {
			Instant start = to.minus(window);
			boolean whole = !start.isAfter(from);
			Deque<Instant> latest = new ArrayDeque<>(keep);
			Instant tick = schedule.nextTick(whole ? from : start);
			for (int i = 0; tick != null && !tick.isAfter(to) && i < MAX_TICKS_COUNTED; i++) {
				if (latest.size() == keep) {
					latest.removeFirst();
				}
				latest.addLast(tick);
				tick = schedule.nextTick(tick);
			}
			if (latest.size() == keep || whole) {
				return new ArrayList<>(latest);
			}
			window = window.multipliedBy(2);
		}
	}

	/** A tick's message id: the schedule's name and the tick's epoch milliseconds. */
	static String tickId(String name, Instant tick) {
		return name + "@" + tick.toEpochMilli();
	}

}
