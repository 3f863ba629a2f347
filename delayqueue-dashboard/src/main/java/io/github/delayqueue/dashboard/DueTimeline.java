package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DueHistogram;

import org.springframework.util.Assert;

/**
 * When a topic's waiting messages fall due: the horizon ahead is cut into equal buckets and each bucket is counted
 * exactly ({@link DelayedQueueAdmin#countDue}: one {@code ZCOUNT} per bucket and partition, O(log n) each, one script
 * call per partition), however many wait; no message is read.
 *
 * @since 1.0.0
 */
public class DueTimeline {

	/** The shortest horizon: shorter windows say nothing a list of the next messages would not. */
	public static final Duration MIN_HORIZON = Duration.ofSeconds(10);

	/** The longest horizon. */
	public static final Duration MAX_HORIZON = Duration.ofDays(366);

	/** The most buckets a horizon is cut into. */
	public static final int MAX_BUCKETS = 200;

	private final DelayedQueueAdmin admin;

	private final int buckets;

	/**
	 * Creates a timeline source.
	 * @param admin where waiting messages are counted
	 * @param buckets how many buckets a horizon is cut into (1 to {@value #MAX_BUCKETS})
	 */
	public DueTimeline(DelayedQueueAdmin admin, int buckets) {
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		Assert.isTrue(buckets >= 1 && buckets <= MAX_BUCKETS,
				() -> "Buckets must be between 1 and " + MAX_BUCKETS + ", but was " + buckets);
		this.admin = admin;
		this.buckets = buckets;
	}

	/**
	 * Counts when a topic's waiting messages fall due from a time on.
	 * @param topic the topic
	 * @param from the start of the first bucket
	 * @param horizon how far ahead the last bucket ends ({@link #MIN_HORIZON} to {@link #MAX_HORIZON})
	 * @return the timeline
	 */
	public Timeline count(String topic, Instant from, Duration horizon) {
		Assert.isTrue(horizon.compareTo(MIN_HORIZON) >= 0 && horizon.compareTo(MAX_HORIZON) <= 0,
				() -> "Horizon must be between " + MIN_HORIZON + " and " + MAX_HORIZON + ", but was " + horizon);
		long width = Math.max(1, horizon.toMillis() / this.buckets);
		Instant start = from.truncatedTo(ChronoUnit.MILLIS);
		DueHistogram histogram = this.admin.countDue(topic, start, start.plusMillis(width * this.buckets),
				this.buckets);
		List<Timeline.Bucket> counted = histogram.windows()
			.stream()
			.map((window) -> new Timeline.Bucket(window.from(), window.count()))
			.toList();
		return new Timeline(topic, histogram.from(), histogram.to(), width, counted, histogram.before(),
				histogram.after());
	}

	/**
	 * A topic's waiting messages by when they fall due, counted exactly.
	 *
	 * @param topic the topic
	 * @param from the start of the first bucket
	 * @param to the end of the last bucket
	 * @param bucketMillis how long each bucket is
	 * @param buckets the buckets, earliest first
	 * @param overdue messages due before {@code from}: ready, not yet claimed
	 * @param later messages due at or after {@code to}
	 */
	public record Timeline(String topic, Instant from, Instant to, long bucketMillis, List<Bucket> buckets,
			long overdue, long later) {

		/**
		 * Creates a timeline.
		 * @param topic the topic
		 * @param from the start
		 * @param to the end
		 * @param bucketMillis the bucket width
		 * @param buckets the buckets
		 * @param overdue messages due before the start
		 * @param later messages due after the end
		 */
		public Timeline {
			buckets = List.copyOf(buckets);
		}

		/**
		 * One bucket: the messages due at or after its start and before the next bucket's (a message due exactly
		 * on an edge is counted once).
		 *
		 * @param from when it starts
		 * @param count how many waiting messages fall due in it, exactly
		 */
		public record Bucket(Instant from, long count) {
		}

	}

}
