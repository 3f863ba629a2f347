package io.github.delayqueue.recurring;

/**
 * What a recurring schedule does with the ticks that passed while no instance ran (or while it was paused). Ticks
 * that a poll finds only a little late (its schedule's cursor, the latest tick stored, is within a few polls of now,
 * at least a second: a poll delayed by a pause or a slow Redis) are not missed: they all fire, whatever the policy.
 *
 * @since 1.0.0
 */
public enum MissedTicks {

	/** Forget them: the next tick is the first after now. */
	SKIP,

	/** Fire once, now, for the latest of them (the default: a report that should have run runs once). */
	FIRE_ONCE,

	/** Fire each of them, now, oldest first, up to the schedule's {@code maxMissed} latest. */
	FIRE_EACH

}
