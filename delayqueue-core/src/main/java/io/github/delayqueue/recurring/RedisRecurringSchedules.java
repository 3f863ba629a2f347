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
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.TopicKeys;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.Assert;

/**
 * The {@link RecurringSchedules} on Redis, and the ticker that fires them. Running, it reads the definitions every
 * poll interval and stores, for each schedule, the message of every tick that falls due within the look-ahead
 * (so the tick is in Redis before it is due, and is delivered on time like any message), and of the ticks missed
 * since its last one, as its {@link MissedTicks} policy says. A script stores a tick only if the schedule's cursor
 * in Redis is before it and moves the cursor, so however many instances run, each tick fires once, with no leader.
 * Tick messages are written through the {@link RedisDelayedQueue} given, like every message (payload limit, metrics,
 * observation); they and the cursor live in the topic's first partition, which every instance has whatever partition
 * count it uses, so instances that disagree on the count (a rolling deploy that changes it) still fire each tick once.
 * <p>
 * The ticker runs on the {@link TaskScheduler} given (see {@link #setTaskScheduler(TaskScheduler)}), or on a
 * scheduler of its own.
 * <p>
 * Missed ticks are counted at most 31 days back. Ticks are instants of this instance's clock, stored as Redis-clock
 * due times: a clock that runs off from Redis's moves ticks by as much.
 *
 * @since 0.3.0
 */
public class RedisRecurringSchedules implements RecurringSchedules, SmartLifecycle {

	/** The default time between two looks at the definitions. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);

	private static final Logger logger = LoggerFactory.getLogger(RedisRecurringSchedules.class);

	private static final Duration MISSED_WINDOW = Duration.ofDays(31);

	private static final int MAX_TICKS_COUNTED = 1_000_000;

	/** The most times a change is tried while other instances change the same schedule. */
	private static final int MAX_ATTEMPTS = 100;

	/** The most ticks stored ahead at once. */
	private static final int MAX_AHEAD = 1000;

	private final RecurringStore store;

	private final RedisDelayedQueue queue;

	private final PayloadConverter converter;

	private TopicPartitioning partitioning = TopicPartitioning.NONE;

	private Duration pollInterval = DEFAULT_POLL_INTERVAL;

	private Clock clock = Clock.systemUTC();

	private boolean autoStartup = true;

	/** The scheduler given, or {@code null} to run on one of its own. */
	private @Nullable TaskScheduler taskScheduler;

	/** The scheduler it created for itself while running without one given. */
	private @Nullable ThreadPoolTaskScheduler ownScheduler;

	/** The ticker's repeated task, while running. */
	private @Nullable ScheduledFuture<?> ticker;

	/** Held while the ticker runs, so that {@link #stop()} waits for a run in progress. */
	private final ReentrantLock running = new ReentrantLock();

	/** Whether the last look at the definitions failed (logged once, until it works again). */
	private volatile boolean failing;

	/** Schedules to define at start (from configuration), until defined. */
	private volatile List<RecurringSchedule> declared = List.of();

	/**
	 * Creates the schedules.
	 * @param store where definitions and cursors live
	 * @param queue the queue that writes the ticks' messages (with its payload limit, metrics and observation)
	 * @param converter serialises payloads (the queue's): it must write JSON, which definitions keep
	 * @since 0.3.0
	 */
	public RedisRecurringSchedules(RecurringStore store, RedisDelayedQueue queue, PayloadConverter converter) {
		Assert.notNull(store, "RecurringStore must not be null");
		Assert.notNull(queue, "RedisDelayedQueue must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		this.store = store;
		this.queue = queue;
		this.converter = converter;
	}

	/**
	 * Sets how many partitions each topic has (the same as the queue's). Ticks go to a topic's first partition
	 * whatever the count; the count only says where builds before 0.3.0 kept a schedule's cursor (the partition of
	 * its name), which is handed over to the first partition on first use.
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		Assert.notNull(partitioning, "TopicPartitioning must not be null");
		this.partitioning = partitioning;
	}

	/**
	 * Sets how often the definitions are read; a tick is stored up to twice this ahead of its time.
	 * @param pollInterval 10 ms to 1 minute
	 */
	public void setPollInterval(Duration pollInterval) {
		Assert.isTrue(pollInterval != null && pollInterval.toMillis() >= 10 && pollInterval.toMinutes() <= 1,
				() -> "Poll interval must be between 10ms and 1m, but was " + pollInterval);
		this.pollInterval = pollInterval;
	}

	/**
	 * Sets the clock ticks are computed by (for tests).
	 * @param clock the clock
	 */
	public void setClock(Clock clock) {
		Assert.notNull(clock, "Clock must not be null");
		this.clock = clock;
	}

	/**
	 * Sets the scheduler the ticker runs on, such as the application's; by default (or with {@code null}) it
	 * creates a scheduler of its own, with one thread, when it starts, and shuts it down when it stops. The ticker's
	 * runs are short (a few Redis calls) and store ticks ahead of their time, so a scheduler that others use too is
	 * fine as long as their tasks do not hold its threads for long.
	 * @param taskScheduler the scheduler, or {@code null} for one of its own
	 * @since 0.3.0
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.taskScheduler = taskScheduler;
	}

	/**
	 * Sets whether the ticker starts with the application context.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Sets schedules to define (or redefine) in Redis when the ticker starts, such as those declared in
	 * configuration; if Redis cannot be reached then, they are defined as soon as it can.
	 * @param schedules the schedules
	 */
	public void setDeclaredSchedules(List<RecurringSchedule> schedules) {
		Assert.notNull(schedules, "Schedules must not be null");
		this.declared = List.copyOf(schedules);
	}

	/**
	 * {@inheritDoc}
	 * <p>
	 * A payload given as an object is written by the {@link PayloadConverter} and must come out as JSON text (the
	 * definition keeps it so), or this throws an {@link IllegalArgumentException} and stores nothing. The definition
	 * is replaced only if it is still the one read (compare and set), so that a pause made meanwhile
	 * by another instance is kept: the definition is read again and keeps the pause.
	 */
	@Override
	public void define(RecurringSchedule schedule) {
		Assert.notNull(schedule, "RecurringSchedule must not be null");
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

	/** Defines a declared schedule unless Redis holds the same definition already (every instance declares it). */
	private void defineIfChanged(RecurringSchedule schedule) {
		StoredDefinition stored = readable(schedule.name());
		if (stored != null && StoredDefinition.of(schedule, payloadOf(schedule), stored.paused()).equals(stored)) {
			return;
		}
		define(schedule);
	}

	@Override
	public boolean pause(String name) {
		return setPaused(RecurringSchedule.validateName(name), true);
	}

	@Override
	public boolean resume(String name) {
		return setPaused(RecurringSchedule.validateName(name), false);
	}

	/**
	 * Pauses or resumes a schedule, only if its definition is still the one read (compare and set), so that a
	 * definition stored meanwhile by another instance is neither lost nor loses the pause.
	 */
	private boolean setPaused(String name, boolean paused) {
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

	@Override
	public boolean remove(String name) {
		RecurringSchedule.validateName(name);
		StoredDefinition definition = readable(name);
		boolean removed = this.store.remove(name);
		if (definition != null) {
			changed(name, definition, "-", true);
		}
		return removed;
	}

	@Override
	public Optional<RecurringScheduleInfo> get(String name) {
		StoredDefinition definition = readable(RecurringSchedule.validateName(name));
		return (definition != null) ? Optional.of(info(name, definition)) : Optional.empty();
	}

	@Override
	public List<RecurringScheduleInfo> list() {
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
	 * Fires what is due: for every schedule that is not paused, the ticks missed since its last one (as its policy
	 * says) and the next tick if it falls within the look-ahead. The ticker calls this every poll interval; each
	 * instance may, and each tick is stored once.
	 * @return how many tick messages this call stored
	 */
	public int fireDue() {
		Instant now = this.clock.instant();
		Instant horizon = now.plus(this.pollInterval.multipliedBy(2));
		int stored = 0;
		for (Map.Entry<String, byte[]> entry : this.store.all().entrySet()) {
			String name = entry.getKey();
			try {
				StoredDefinition definition = StoredDefinition.decode(name, entry.getValue());
				if (!definition.paused()) {
					stored += fire(name, definition, digest(entry.getValue()), now, horizon);
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
		String partition = partitionOf(schedule);
		Long cursorMillis = this.store.cursor(partition, name);
		if (cursorMillis == null && adoptLegacyCursor(schedule)) {
			cursorMillis = this.store.cursor(partition, name);
		}
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
			headers.put(SCHEDULE_HEADER, name);
			headers.put(TICK_HEADER, tick.toString());
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

	/**
	 * Tells the store that a schedule's definition changed (see {@link RecurringStore#changed}), naming the ticks
	 * of the previous definition that may wait: those from a second ago up to its cursor.
	 */
	private void changed(String name, StoredDefinition previous, String digest, boolean reset) {
		RecurringSchedule schedule = previous.schedule(name);
		String partition = partitionOf(schedule);
		for (int attempt = 1;; attempt++) {
			List<String> waiting = new ArrayList<>();
			Long cursor = null;
			if (reset) {
				cursor = this.store.cursor(partition, name);
				if (cursor == null && adoptLegacyCursor(schedule)) {
					cursor = this.store.cursor(partition, name);
				}
				Instant tick = schedule.nextTick(this.clock.instant().minusSeconds(1));
				for (int i = 0; tick != null && cursor != null && tick.toEpochMilli() <= cursor && i < MAX_AHEAD; i++) {
					waiting.add(tickId(name, tick));
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

	private static String digest(byte[] stored) {
		return DigestUtils.sha1DigestAsHex(new String(stored, StandardCharsets.UTF_8));
	}

	private RecurringScheduleInfo info(String name, StoredDefinition definition) {
		RecurringSchedule schedule = definition.schedule(name);
		Long cursor = this.store.cursor(partitionOf(schedule), name);
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

	/**
	 * All of a schedule's ticks go to its topic's first partition, which every instance has whatever its partition
	 * count, so its cursor is in one place for all of them (where the queue's writer stores ticks).
	 */
	private static String partitionOf(RecurringSchedule schedule) {
		return TopicKeys.partitionName(schedule.topic(), 0);
	}

	/**
	 * Hands over a cursor that a build before 0.3.0 kept in the partition of the schedule's name (by this
	 * instance's count) to the first partition.
	 * @return whether a cursor was handed over
	 */
	private boolean adoptLegacyCursor(RecurringSchedule schedule) {
		int legacy = this.partitioning.partitionOf(schedule.topic(), schedule.name());
		if (legacy == 0) {
			return false;
		}
		return this.store.adopt(TopicKeys.partitionName(schedule.topic(), legacy), partitionOf(schedule),
				schedule.name());
	}

	/** A tick's message id: the schedule's name and the tick's epoch milliseconds. */
	static String tickId(String name, Instant tick) {
		return name + "@" + tick.toEpochMilli();
	}

	@Override
	public synchronized void start() {
		if (this.ticker != null) {
			return;
		}
		TaskScheduler scheduler = this.taskScheduler;
		if (scheduler == null) {
			ThreadPoolTaskScheduler own = new ThreadPoolTaskScheduler();
			own.setThreadNamePrefix("delayqueue-recurring-");
			own.setDaemon(true);
			own.initialize();
			this.ownScheduler = own;
			scheduler = own;
		}
		this.ticker = scheduler.scheduleWithFixedDelay(this::fireQuietly, this.pollInterval);
	}

	private void fireQuietly() {
		this.running.lock();
		try {
			fireAndLog();
		}
		finally {
			this.running.unlock();
		}
	}

	private void fireAndLog() {
		boolean wasFailing = this.failing;
		try {
			List<RecurringSchedule> toDefine = this.declared;
			if (!toDefine.isEmpty()) {
				List<RecurringSchedule> failed = new ArrayList<>();
				for (RecurringSchedule schedule : toDefine) {
					try {
						defineIfChanged(schedule);
					}
					catch (RuntimeException ex) {
						failed.add(schedule);
						logger.warn("Could not define recurring schedule '{}'; trying again in {}", schedule.name(),
								this.pollInterval, ex);
					}
				}
				this.declared = List.copyOf(failed);
			}
			fireDue();
			if (wasFailing) {
				this.failing = false;
				logger.info("Recurring schedules are read again");
			}
		}
		catch (RuntimeException ex) {
			this.failing = true;
			if (!wasFailing) {
				logger.warn("Could not read the recurring schedules; trying again every {}", this.pollInterval, ex);
			}
			else {
				logger.debug("Could not read the recurring schedules again", ex);
			}
		}
	}

	/** Stops the ticker, waiting up to 5 seconds for a run in progress to end. */
	@Override
	public synchronized void stop() {
		ScheduledFuture<?> task = this.ticker;
		this.ticker = null;
		if (task != null) {
			task.cancel(false);
			try {
				if (this.running.tryLock(5, TimeUnit.SECONDS)) {
					this.running.unlock();
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		ThreadPoolTaskScheduler own = this.ownScheduler;
		this.ownScheduler = null;
		if (own != null) {
			own.shutdown();
		}
	}

	@Override
	public synchronized boolean isRunning() {
		return this.ticker != null;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

}
