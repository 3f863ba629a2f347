package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.WaitingQuery;

import org.springframework.util.Assert;

/**
 * When a topic's waiting messages fall due: the horizon ahead is cut into equal buckets and each bucket is counted
 * by listing the waiting messages due in its window, at most a fixed number per bucket. So drawing a timeline reads
 * at most {@code buckets x perBucket} messages per partition, however many wait; a bucket that reached the
 * bound is marked capped (it holds at least that many).
 *
 * @since 0.3.0
 */
public class DueTimeline {

	/** The shortest horizon: shorter windows say nothing a list of the next messages would not. */
	public static final Duration MIN_HORIZON = Duration.ofSeconds(10);

	/** The longest horizon. */
	public static final Duration MAX_HORIZON = Duration.ofDays(366);

	private final DelayedQueueAdmin admin;

	private final int buckets;

	private final int perBucket;

	/**
	 * Creates a timeline source.
	 * @param admin where waiting messages are listed
	 * @param buckets how many buckets a horizon is cut into (1 to 200)
	 * @param maxMessages how many messages one timeline lists at most, spread over the buckets (at least one per
	 * bucket, at most {@value WaitingQuery#MAX_LIMIT} per bucket)
	 */
	public DueTimeline(DelayedQueueAdmin admin, int buckets, int maxMessages) {
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		Assert.isTrue(buckets >= 1 && buckets <= 200, () -> "Buckets must be between 1 and 200, but was " + buckets);
		Assert.isTrue(maxMessages >= buckets, () -> "A timeline must list at least one message per bucket ("
				+ buckets + "), but max messages was " + maxMessages);
		this.admin = admin;
		this.buckets = buckets;
		this.perBucket = Math.min(WaitingQuery.MAX_LIMIT, maxMessages / buckets);
	}

	/**
	 * Counts when a topic's waiting messages fall due from a time on.
	 * @param topic the topic
	 * @param from the start of the first bucket
	 * @param horizon how far ahead the last bucket ends
	 * @return the timeline
	 */
	public Timeline count(String topic, Instant from, Duration horizon) {
		Assert.isTrue(horizon.compareTo(MIN_HORIZON) >= 0 && horizon.compareTo(MAX_HORIZON) <= 0,
				() -> "Horizon must be between " + MIN_HORIZON + " and " + MAX_HORIZON + ", but was " + horizon);
		long width = Math.max(1, horizon.toMillis() / this.buckets);
		List<Timeline.Bucket> counted = new ArrayList<>(this.buckets);
		for (int i = 0; i < this.buckets; i++) {
			Instant start = from.plusMillis(i * width);
			// windows are inclusive at both ends, and due times are kept to the microsecond: a bucket ends 1 us
			// before the next one starts
			Instant end = start.plusMillis(width).minus(1, ChronoUnit.MICROS);
			MessagePage page = this.admin.listWaiting(topic, WaitingQuery.first(this.perBucket).from(start).to(end));
			int count = page.messages().size();
			counted.add(new Timeline.Bucket(start, count, count >= this.perBucket));
		}
		return new Timeline(topic, from, from.plusMillis(width * this.buckets), width, this.perBucket, counted);
	}

	/**
	 * How many messages a bucket counts at most.
	 * @return the bound
	 */
	public int perBucket() {
		return this.perBucket;
	}

	/**
	 * A topic's waiting messages by when they fall due.
	 *
	 * @param topic the topic
	 * @param from the start of the first bucket
	 * @param to the end of the last bucket
	 * @param bucketMillis how long each bucket is
	 * @param perBucket the most messages a bucket counts
	 * @param buckets the buckets, earliest first
	 */
	public record Timeline(String topic, Instant from, Instant to, long bucketMillis, int perBucket,
			List<Bucket> buckets) {

		/**
		 * Creates a timeline.
		 * @param topic the topic
		 * @param from the start
		 * @param to the end
		 * @param bucketMillis the bucket width
		 * @param perBucket the bound per bucket
		 * @param buckets the buckets
		 */
		public Timeline {
			buckets = List.copyOf(buckets);
		}

		/**
		 * One bucket.
		 *
		 * @param from when it starts
		 * @param count how many waiting messages fall due in it, up to the bound
		 * @param capped whether the bound was reached (at least {@code count} fall due in it)
		 */
		public record Bucket(Instant from, int count, boolean capped) {
		}

	}

}
