package io.github.delayqueue;

import org.springframework.util.Assert;

/**
 * Priorities: the range of the priority a message may carry (see {@link ScheduleRequest.Builder#priority(int)} and
 * the "Fair delivery" reference page). Among the due messages of a topic, a higher priority starts first; by default
 * each level gets a share weighted by {@code level + 1}, so that a lower level is never starved, and a topic may opt
 * in to strict order ({@link PriorityMode#STRICT}).
 * <p>
 * A priority is an integer from {@value #MIN} (lowest) to {@value #MAX}; a message without one has
 * {@value #DEFAULT}. A message of the default priority is stored as it was before priorities existed, so a topic that
 * uses none pays nothing for them.
 *
 * @since 1.0.0
 */
public final class MessagePriorities {

	/** The lowest priority. */
	public static final int MIN = 0;

	/** The highest priority. */
	public static final int MAX = 9;

	/** The priority of a message that sets none. */
	public static final int DEFAULT = 4;

	private MessagePriorities() {
	}

	/**
	 * Checks a priority: {@value #MIN} to {@value #MAX}.
	 * @param priority the priority
	 * @throws IllegalArgumentException if it is out of range
	 */
	public static void validate(int priority) {
		Assert.isTrue(priority >= MIN && priority <= MAX, () -> "Priority must be from " + MIN + " (lowest) to " + MAX
				+ " (highest; " + DEFAULT + " if unset), but was " + priority);
	}

	/**
	 * How a topic orders the priorities of its due messages.
	 *
	 * @since 1.0.0
	 */
	public enum PriorityMode {

		/**
		 * Each priority level with due messages gets a share of every claim weighted by {@code level + 1}, higher
		 * levels first within it: a higher priority starts first, and a lower one still gets its share under a
		 * flood of higher ones (the starvation guard). The default.
		 */
		WEIGHTED,

		/**
		 * A lower level is served only when no higher one has a due message: a flood of higher priorities can hold
		 * lower ones back for as long as it lasts.
		 */
		STRICT

	}

}
