package io.github.delayqueue.recurring;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RecurringStore;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.scheduling.TaskScheduler;
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
 * It is a facade over one object per job: the definitions and their compare-and-set changes
 * ({@code ScheduleDefinitions}), where each schedule's cursor lives ({@code TickCursors}), which ticks are due and
 * their messages ({@code DueTicks}), and the ticker that runs every poll interval ({@code RecurringTicker}).
 * <p>
 * Missed ticks are counted at most 31 days back. Ticks are instants of this instance's clock, stored as Redis-clock
 * due times: a clock that runs off from Redis's moves ticks by as much.
 *
 * @since 1.0.0
 */
public class RedisRecurringSchedules implements RecurringSchedules, SmartLifecycle {

	/** The default time between two looks at the definitions. */
	public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofMillis(500);

	private final TickCursors cursors;

	private final ScheduleDefinitions definitions;

	private final DueTicks ticks;

	private final RecurringTicker ticker;

	private boolean autoStartup = true;

	/**
	 * Creates the schedules.
	 * @param store where definitions and cursors live
	 * @param queue the queue that writes the ticks' messages (with its payload limit, metrics and observation)
	 * @param converter serialises payloads (the queue's): it must write JSON, which definitions keep
	 * @since 1.0.0
	 */
	public RedisRecurringSchedules(RecurringStore store, RedisDelayedQueue queue, PayloadConverter converter) {
		Assert.notNull(store, "RecurringStore must not be null");
		Assert.notNull(queue, "RedisDelayedQueue must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		this.cursors = new TickCursors(store);
		this.definitions = new ScheduleDefinitions(store, converter, this.cursors);
		this.ticks = new DueTicks(store, queue, this.cursors);
		this.ticker = new RecurringTicker(this::defineIfChanged, this::fireDue);
	}

	/**
	 * Sets how many partitions each topic has (the same as the queue's). Ticks go to a topic's first partition
	 * whatever the count; the count only says where builds before 0.3.0 kept a schedule's cursor (the partition of
	 * its name), which is handed over to the first partition on first use.
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		Assert.notNull(partitioning, "TopicPartitioning must not be null");
		this.cursors.setPartitioning(partitioning);
	}

	/**
	 * Sets how often the definitions are read; a tick is stored up to twice this ahead of its time.
	 * @param pollInterval 10 ms to 1 minute
	 */
	public void setPollInterval(Duration pollInterval) {
		Assert.isTrue(pollInterval != null && pollInterval.toMillis() >= 10 && pollInterval.toMinutes() <= 1,
				() -> "Poll interval must be between 10ms and 1m, but was " + pollInterval);
		this.ticks.setPollInterval(pollInterval);
		this.ticker.setPollInterval(pollInterval);
	}

	/**
	 * Sets the clock ticks are computed by (for tests).
	 * @param clock the clock
	 */
	public void setClock(Clock clock) {
		Assert.notNull(clock, "Clock must not be null");
		this.definitions.setClock(clock);
		this.ticks.setClock(clock);
	}

	/**
	 * Sets the scheduler the ticker runs on, such as the application's; by default (or with {@code null}) it
	 * creates a scheduler of its own, with one thread, when it starts, and shuts it down when it stops. The ticker's
	 * runs are short (a few Redis calls) and store ticks ahead of their time, so a scheduler that others use too is
	 * fine as long as their tasks do not hold its threads for long.
	 * @param taskScheduler the scheduler, or {@code null} for one of its own
	 * @since 1.0.0
	 */
	public void setTaskScheduler(@Nullable TaskScheduler taskScheduler) {
		this.ticker.setTaskScheduler(taskScheduler);
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
		this.ticker.setDeclaredSchedules(schedules);
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
		this.definitions.define(schedule);
	}

	/** Defines a declared schedule unless Redis holds the same definition already (every instance declares it). */
	private void defineIfChanged(RecurringSchedule schedule) {
		if (this.definitions.isStored(schedule)) {
			return;
		}
		define(schedule);
	}

	@Override
	public boolean pause(String name) {
		return this.definitions.setPaused(RecurringSchedule.validateName(name), true);
	}

	@Override
	public boolean resume(String name) {
		return this.definitions.setPaused(RecurringSchedule.validateName(name), false);
	}

	@Override
	public boolean remove(String name) {
		return this.definitions.remove(RecurringSchedule.validateName(name));
	}

	@Override
	public Optional<RecurringScheduleInfo> get(String name) {
		return this.definitions.get(RecurringSchedule.validateName(name));
	}

	@Override
	public List<RecurringScheduleInfo> list() {
		return this.definitions.list();
	}

	/**
	 * Fires what is due: for every schedule that is not paused, the ticks missed since its last one (as its policy
	 * says) and the next tick if it falls within the look-ahead. The ticker calls this every poll interval; each
	 * instance may, and each tick is stored once.
	 * @return how many tick messages this call stored
	 */
	public int fireDue() {
		return this.ticks.fireDue();
	}

	/** A tick's message id: the schedule's name and the tick's epoch milliseconds. */
	static String tickId(String name, Instant tick) {
		return DueTicks.tickId(name, tick);
	}

	@Override
	public void start() {
		this.ticker.start();
	}

	/** Stops the ticker, waiting up to 5 seconds for a run in progress to end. */
	@Override
	public void stop() {
		this.ticker.stop();
	}

	@Override
	public boolean isRunning() {
		return this.ticker.isRunning();
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

}
