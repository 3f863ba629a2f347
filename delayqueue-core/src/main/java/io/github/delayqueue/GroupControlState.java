package io.github.delayqueue;

import org.jspecify.annotations.Nullable;

/**
 * One group's controls and counts as Redis keeps them across a topic's partitions, followed by every instance (see
 * {@link ScheduleRequest.Builder#group(String)}).
 *
 * @param topic the topic
 * @param group the group key, or {@code null} when only the topic's default cap was set
 * @param paused whether none of the group's messages is leased
 * @param cap the group's own concurrency cap (the sum of its partitions' shares), or {@code null} for none
 * @param defaultCap the topic's default cap for each of its groups, or {@code null} for none
 * @param inFlight how many of the group's messages are leased now (running, or held by a consumer for a handler)
 * @param waiting how many of the group's messages wait (scheduled, or waiting for a retry)
 * @param weight the group's weight among the groups served in turn, 1 to {@value MessageGroups#MAX_WEIGHT} (1 unless
 * set)
 * @param ratePerSecond the group's own rate limit, handler starts per second (the sum of its partitions' shares), or
 * {@code null} for none
 * @param defaultRatePerSecond the topic's default rate limit for each of its groups, or {@code null} for none
 * @since 1.0.0
 */
public record GroupControlState(String topic, @Nullable String group, boolean paused, @Nullable Integer cap,
		@Nullable Integer defaultCap, long inFlight, long waiting, int weight, @Nullable Double ratePerSecond,
		@Nullable Double defaultRatePerSecond) {

	/**
	 * Creates the state of a group of the default weight without rate limits.
	 * @param topic the topic
	 * @param group the group key, or {@code null} when only the topic's default cap was set
	 * @param paused whether none of the group's messages is leased
	 * @param cap the group's own concurrency cap, or {@code null} for none
	 * @param defaultCap the topic's default cap for each of its groups, or {@code null} for none
	 * @param inFlight how many of the group's messages are leased now
	 * @param waiting how many of the group's messages wait
	 */
	public GroupControlState(String topic, @Nullable String group, boolean paused, @Nullable Integer cap,
			@Nullable Integer defaultCap, long inFlight, long waiting) {
		this(topic, group, paused, cap, defaultCap, inFlight, waiting, 1, null, null);
	}

	/**
	 * Creates the state of a group without rate limits.
	 * @param topic the topic
	 * @param group the group key, or {@code null} when only the topic's default cap was set
	 * @param paused whether none of the group's messages is leased
	 * @param cap the group's own concurrency cap, or {@code null} for none
	 * @param defaultCap the topic's default cap for each of its groups, or {@code null} for none
	 * @param inFlight how many of the group's messages are leased now
	 * @param waiting how many of the group's messages wait
	 * @param weight the group's weight among the groups served in turn
	 */
	public GroupControlState(String topic, @Nullable String group, boolean paused, @Nullable Integer cap,
			@Nullable Integer defaultCap, long inFlight, long waiting, int weight) {
		this(topic, group, paused, cap, defaultCap, inFlight, waiting, weight, null, null);
	}

	/**
	 * Creates the state of a group of the default weight.
	 * @param topic the topic
	 * @param group the group key, or {@code null} when only the topic's defaults were set
	 * @param paused whether none of the group's messages is leased
	 * @param cap the group's own concurrency cap, or {@code null} for none
	 * @param defaultCap the topic's default cap for each of its groups, or {@code null} for none
	 * @param inFlight how many of the group's messages are leased now
	 * @param waiting how many of the group's messages wait
	 * @param ratePerSecond the group's own rate limit, or {@code null} for none
	 * @param defaultRatePerSecond the topic's default rate limit for each of its groups, or {@code null} for none
	 */
	public GroupControlState(String topic, @Nullable String group, boolean paused, @Nullable Integer cap,
			@Nullable Integer defaultCap, long inFlight, long waiting, @Nullable Double ratePerSecond,
			@Nullable Double defaultRatePerSecond) {
		this(topic, group, paused, cap, defaultCap, inFlight, waiting, 1, ratePerSecond, defaultRatePerSecond);
	}

	/**
	 * The rate limit in force for the group: its own, else the topic's default.
	 * @return handler starts per second, or {@code null} if none
	 */
	public @Nullable Double effectiveRatePerSecond() {
		return (this.ratePerSecond != null) ? this.ratePerSecond : this.defaultRatePerSecond;
	}

	/**
	 * The cap in force for the group: its own, else the topic's default.
	 * @return the cap, or {@code null} if none
	 */
	public @Nullable Integer effectiveCap() {
		return (this.cap != null) ? this.cap : this.defaultCap;
	}

}
