package io.github.delayqueue.redis.internal;

import java.util.List;

/**
 * A topic partition's waiting messages counted by when they fall due, in consecutive windows, at one instant of the
 * Redis clock ({@link MessageOperations#countDue}).
 *
 * @param before messages due before the first window (ready now, or overdue)
 * @param windows the count of each window, earliest first
 * @param after messages due at or after the end of the last window
 * @since 1.0.0
 */
public record DueCounts(long before, List<Long> windows, long after) {

	/**
	 * Creates the counts.
	 * @param before messages due before the first window
	 * @param windows the count of each window
	 * @param after messages due after the last window
	 */
	public DueCounts {
		windows = List.copyOf(windows);
	}

}
