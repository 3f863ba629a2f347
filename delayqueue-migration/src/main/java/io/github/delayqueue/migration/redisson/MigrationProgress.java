package io.github.delayqueue.migration.redisson;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs how far one pass of a migration has come, each time it passes another tenth of the elements (a queue of
 * millions takes minutes; the operator sees it move).
 */
final class MigrationProgress {

	private static final Logger logger = LoggerFactory.getLogger(RedissonDelayedQueueMigration.class);

	private static final int STEPS = 10;

	private final String queue;

	private final String doing;

	private final long total;

	private final long startNanos = System.nanoTime();

	private long done;

	private int logged;

	/**
	 * Starts counting a pass.
	 * @param queue the Redisson queue's name
	 * @param doing what the pass does to each element, such as {@code "scheduled"}
	 * @param total how many elements the pass expects
	 */
	MigrationProgress(String queue, String doing, long total) {
		this.queue = queue;
		this.doing = doing;
		this.total = total;
	}

	/**
	 * Counts elements the pass is done with, logging when they pass another tenth.
	 * @param elements how many more
	 */
	void advance(int elements) {
		this.done += elements;
		if (this.total <= 0) {
			return;
		}
		int step = (int) Math.min(STEPS, this.done * STEPS / this.total);
		if (step > this.logged) {
			this.logged = step;
			long seconds = (System.nanoTime() - this.startNanos) / 1_000_000_000L;
			logger.info("Redisson queue '{}': {} {} of {} elements ({}%) in {} s", this.queue, this.doing, this.done,
					this.total, this.done * 100 / this.total, seconds);
		}
	}

}
