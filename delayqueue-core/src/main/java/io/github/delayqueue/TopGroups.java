package io.github.delayqueue;

import java.util.List;

/**
 * A topic's groups with the most messages waiting, with their counts in flight, pause and weight (see
 * {@link DelayedQueueAdmin#topGroups(String, int)}), summed over the topic's partitions.
 * @param topic the topic
 * @param groups the groups, the most waiting first (ties by key)
 * @param complete whether every group with messages waiting was looked at: {@code false} when a partition has more
 * than {@value #LOOKED_AT} groups with a turn, or more than {@value #LOOKED_AT} held (paused or at their cap), so that
 * the list is the top of those looked at (the groups whose turn came first, the longest overdue)
 * @since 1.0.0
 */
public record TopGroups(String topic, List<GroupCount> groups, boolean complete) {

	/** The most groups one call returns. */
	public static final int MAX_COUNT = 100;

	/** The most groups with a turn, and the most held groups, looked at per partition. */
	public static final int LOOKED_AT = 1000;

	/**
	 * One group's counts.
	 * @param group the group key
	 * @param waiting how many of its messages wait (scheduled, or waiting for a retry)
	 * @param inFlight how many are leased now (running, or held by a consumer for a handler)
	 * @param paused whether it is paused
	 * @param weight its weight among the groups served in turn (1 unless set)
	 */
	public record GroupCount(String group, long waiting, long inFlight, boolean paused, int weight) {
	}

}
