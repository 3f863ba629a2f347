package io.github.delayqueue.recurring;

import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.jspecify.annotations.Nullable;

/**
 * Where a schedule's cursor (the time of its last stored tick) lives: all of a schedule's ticks go to its topic's
 * first partition, which every instance has whatever its partition count, so its cursor is in one place for all of
 * them (where the queue's writer stores ticks). A cursor that a build before 0.3.0 kept in the partition of the
 * schedule's name is handed over to the first partition on first use.
 */
final class TickCursors {

	private final RecurringStore store;

	private TopicPartitioning partitioning = TopicPartitioning.NONE;

	TickCursors(RecurringStore store) {
		this.store = store;
	}

	/**
	 * Sets how many partitions each topic has: only where builds before 0.3.0 kept a schedule's cursor.
	 * @param partitioning the partitioning
	 */
	void setPartitioning(TopicPartitioning partitioning) {
		this.partitioning = partitioning;
	}

	/**
	 * A schedule's cursor, after handing over one that a build before 0.3.0 kept elsewhere.
	 * @param schedule the schedule
	 * @return the cursor in epoch milliseconds, or {@code null} if none of its ticks was stored yet
	 */
	@Nullable Long cursor(RecurringSchedule schedule) {
		String partition = partitionOf(schedule);
		Long cursor = this.store.cursor(partition, schedule.name());
		if (cursor == null && adoptLegacyCursor(schedule)) {
			cursor = this.store.cursor(partition, schedule.name());
		}
		return cursor;
	}

	/**
	 * A schedule's cursor where it is now, without handing over one that a build before 0.3.0 kept elsewhere.
	 * @param schedule the schedule
	 * @return the cursor in epoch milliseconds, or {@code null}
	 */
	@Nullable Long current(RecurringSchedule schedule) {
		return this.store.cursor(partitionOf(schedule), schedule.name());
	}

	/**
	 * All of a schedule's ticks go to its topic's first partition, which every instance has whatever its partition
	 * count, so its cursor is in one place for all of them (where the queue's writer stores ticks).
	 */
	static String partitionOf(RecurringSchedule schedule) {
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

}
