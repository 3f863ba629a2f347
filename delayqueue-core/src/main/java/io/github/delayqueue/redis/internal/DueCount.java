package io.github.delayqueue.redis.internal;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.Assert;

import static io.github.delayqueue.redis.internal.Replies.bytes;
import static io.github.delayqueue.redis.internal.Replies.nullableBytes;
import static io.github.delayqueue.redis.internal.Replies.number;

/**
 * A {@link MessageOperations#countDue} under way, one script call a step: the first counts the pending set and the
 * first pages, each further step the pages from the place in their order where the last one stopped (a count of many
 * pages takes several calls, so that none holds Redis for long; tests step it by hand to change the pages between
 * calls).
 */
final class DueCount {

	private static final Script DUE_COUNT = Script.load("due-count");

	private final ScriptExecutor scripts;

	private final byte[][] args;

	private final int edges;

	// before the first edge, each window, at or after the last edge
	private final long[] counts;

	private long inPages;

	private long pagesCounted;

	private byte @Nullable [] from = new byte[0];

	DueCount(TopicKeys keys, ScriptExecutor scripts, String topic, List<Instant> edges) {
		Assert.isTrue(edges.size() >= 2 && edges.size() <= MessageOperations.MAX_WINDOWS + 1,
				() -> "Between 1 and " + MessageOperations.MAX_WINDOWS + " windows (2 to "
						+ (MessageOperations.MAX_WINDOWS + 1) + " edges), but got " + edges.size() + " edges");
		this.scripts = scripts;
		this.args = new byte[3 + edges.size()][];
		this.args[0] = keys.pending(topic);
		for (int i = 0; i < edges.size(); i++) {
			Instant edge = edges.get(i);
			Assert.isTrue(i == 0 || edge.truncatedTo(ChronoUnit.MICROS)
				.isAfter(edges.get(i - 1).truncatedTo(ChronoUnit.MICROS)), "Edges must be strictly ascending (to the µs)");
			this.args[i + 3] = bytes(Position.score(edge));
		}
		this.edges = edges.size();
		this.counts = new long[edges.size() + 1];
	}

	boolean done() {
		return this.from == null;
	}

	/** One script call, walking at most {@code most} pages. */
	void step(int most) {
		Assert.state(this.from != null, "The count is done");
		this.args[1] = this.from;
		this.args[2] = bytes(most);
		List<?> reply = this.scripts.run(DUE_COUNT, ReturnType.MULTI, this.args);
		byte[] next = nullableBytes(reply.get(0));
		this.from = (next != null && next.length > 0) ? next : null;
		// (the pages' count as the latest call read it: the messages it counts after the last edge are those the calls
		// did not count in a window)
		this.inPages = number(reply.get(1));
		this.pagesCounted += number(reply.get(2));
		for (int i = 0; i < this.counts.length; i++) {
			this.counts[i] += number(reply.get(i + 3));
		}
	}

	DueCounts result() {
		Assert.state(this.from == null, "The count is not done");
		// the pages' messages at or after the last edge: what the calls did not count of them (calls after the first
		// see messages come and go meanwhile: never below none)
		long after = this.counts[this.edges] + Math.max(0, this.inPages - this.pagesCounted);
		List<Long> windows = new ArrayList<>(this.edges - 1);
		for (int i = 1; i < this.edges; i++) {
			windows.add(this.counts[i]);
		}
		return new DueCounts(this.counts[0], windows, after);
	}

}
