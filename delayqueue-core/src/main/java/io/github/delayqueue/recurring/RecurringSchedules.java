package io.github.delayqueue.recurring;

import java.util.List;
import java.util.Optional;

/**
 * Defines, changes and lists recurring schedules. Definitions live in Redis, so every instance with the same key
 * prefix sees the same; every instance running a {@link RedisRecurringSchedules} fires them, and each tick is
 * stored once however many do. A tick's message reaches the topic's listener like any message, due at the tick,
 * with the headers {@link #SCHEDULE_HEADER} and {@link #TICK_HEADER}; the ticks of one schedule are independent
 * messages, so a tick whose handler still runs does not hold up the next (the listener's concurrency bounds them).
 *
 * @since 1.0.0
 */
public interface RecurringSchedules {

	/** The header naming the recurring schedule a message came from. */
	String SCHEDULE_HEADER = "delayqueue_recurring";

	/** The header holding the tick a message is for ({@code java.time.Instant} text). */
	String TICK_HEADER = "delayqueue_tick";

	/**
	 * Defines a schedule, or replaces the one of the same name: from its next tick on, every instance fires the new
	 * definition (a tick already stored for the old one is withdrawn). A paused schedule stays paused.
	 * @param schedule the schedule
	 */
	void define(RecurringSchedule schedule);

	/**
	 * Pauses a schedule: no tick fires until it is resumed (its waiting tick is withdrawn).
	 * @param name the schedule's name
	 * @return {@code true} if it exists
	 */
	boolean pause(String name);

	/**
	 * Resumes a paused schedule; the ticks missed meanwhile follow its {@link MissedTicks} policy.
	 * @param name the schedule's name
	 * @return {@code true} if it exists
	 */
	boolean resume(String name);

	/**
	 * Removes a schedule (its waiting tick is withdrawn; ticks delivered already stay delivered).
	 * @param name the schedule's name
	 * @return {@code true} if it existed
	 */
	boolean remove(String name);

	/**
	 * One schedule.
	 * @param name the schedule's name
	 * @return the schedule and where it stands, if it exists
	 */
	Optional<RecurringScheduleInfo> get(String name);

	/**
	 * Every schedule, by name.
	 * @return the schedules and where they stand
	 */
	List<RecurringScheduleInfo> list();

}
