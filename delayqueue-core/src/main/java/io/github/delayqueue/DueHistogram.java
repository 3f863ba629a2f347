package io.github.delayqueue;

import java.time.Instant;
import java.util.List;

import org.springframework.util.Assert;

/**
 * A topic's waiting messages (scheduled or waiting for a retry) counted exactly by when they fall due, in equal
 * consecutive windows ({@link TopicOperations#countDue(String, Instant, Instant, int)}). Each window holds the
 * messages due at or after its start and before its end, so a message due exactly on an edge is counted once, in the
 * window that starts there. Counted with one {@code ZCOUNT} per window and partition (O(log n) each), never by
 * reading messages; each partition is counted at one instant of the Redis clock, the partitions one after the other.
 *
 * @param topic the topic
 * @param from the start of the first window (to the microsecond)
 * @param to the end of the last window (to the microsecond)
 * @param windows the windows, earliest first
 * @param before messages due before {@code from} (ready now, or overdue, when {@code from} is now)
 * @param after messages due at or after {@code to}
 * @since 1.0.0
 */
public record DueHistogram(String topic, Instant from, Instant to, List<Window> windows, long before, long after) {

	/** The most windows one histogram counts. */
	public static final int MAX_WINDOWS = 1000;

	/**
	 * Creates a histogram.
	 * @param topic the topic
	 * @param from the start of the first window
	 * @param to the end of the last window
	 * @param windows the windows
	 * @param before messages due before {@code from}
	 * @param after messages due at or after {@code to}
	 */
	public DueHistogram {
		Assert.notNull(topic, "Topic must not be null");
		windows = List.copyOf(windows);
	}

	/**
	 * The messages due in the windows, from {@code from} to {@code to}.
	 * @return the sum of the windows' counts
	 */
	public long total() {
		return this.windows.stream().mapToLong(Window::count).sum();
	}

	/**
	 * One window.
	 *
	 * @param from when it starts (inclusive)
	 * @param to when it ends (exclusive: the next window's start)
	 * @param count the waiting messages due in it, exactly
	 */
	public record Window(Instant from, Instant to, long count) {
	}

}
