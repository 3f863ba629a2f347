package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;

/**
 * A topic with a rate limit, drained by two application instances (each its own connection, wake-up timer and
 * listener container) from a backlog far larger than the limit lets through: how closely the handler starts of both
 * together follow the limit, measured over a window that begins after the bucket's saved-up second is spent.
 */
final class RateLimitBenchmark {

	private static final String TOPIC = "rated";

	private static final int THREADS_PER_INSTANCE = 8;

	/** Handler starts before the window, so the full bucket (one second of starts) is spent when it opens. */
	private static final Duration SETTLE = Duration.ofSeconds(3);

	private final DelayQueueSystem system;

	private final Report report;

	private final double rate;

	private final Duration window;

	RateLimitBenchmark(DelayQueueSystem system, Report report, double rate, Duration window) {
		this.system = system;
		this.report = report;
		this.rate = rate;
		this.window = window;
	}

	private static void pause() {
		try {
			Thread.sleep(200);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
	}

	void run() {
		RedisDelayedQueue queue = this.system.queue();
		RedisDelayedQueueAdmin admin = this.system.admin();
		long backlog = (long) (this.rate * (SETTLE.toSeconds() + this.window.toSeconds() + 10));
		Instant due = Instant.now().plusSeconds(1);
		List<ScheduleRequest> chunk = new ArrayList<>();
		for (long i = 0; i < backlog; i++) {
			chunk.add(ScheduleRequest.builder(TOPIC, "m-" + i).id("m-" + i).dueAt(due).build());
			if (chunk.size() == 1000 || i == backlog - 1) {
				queue.scheduleAll(chunk);
				chunk = new ArrayList<>();
			}
		}
		admin.setLimits(TOPIC, TopicLimits.NONE.withRate(this.rate));
		ConcurrentLinkedQueue<long[]> starts = new ConcurrentLinkedQueue<>();
		long began = System.nanoTime();
		try (QueueUnderTest.Consumer first = this.system.consume(TOPIC, THREADS_PER_INSTANCE,
				(payload, storedDue) -> starts.add(new long[] { System.nanoTime(), 0 }));
				QueueUnderTest.Consumer second = this.system.consume(TOPIC, THREADS_PER_INSTANCE,
						(payload, storedDue) -> starts.add(new long[] { System.nanoTime(), 1 }))) {
			long end = began + TimeUnit.SECONDS.toNanos(1) + SETTLE.toNanos() + this.window.toNanos()
					+ TimeUnit.SECONDS.toNanos(1);
			while (System.nanoTime() < end) {
				pause();
			}
		}
		long from = starts.stream().mapToLong((s) -> s[0]).min().orElse(began) + SETTLE.toNanos();
		long to = from + this.window.toNanos();
		long[] perInstance = new long[2];
		for (long[] start : starts) {
			if (start[0] >= from && start[0] < to) {
				perInstance[(int) start[1]]++;
			}
		}
		long total = perInstance[0] + perInstance[1];
		double measured = total / (this.window.toNanos() / 1e9);
		double deviation = (measured - this.rate) / this.rate * 100;
		String section = String.format(Locale.ROOT, "6. Rate limit: a topic limited to %.0f msgs/s, drained by two "
				+ "instances (%d handler threads each) from a backlog", this.rate, THREADS_PER_INSTANCE);
		this.report.row(section, String.format(Locale.ROOT, "handler starts per second over %d s", this.window.toSeconds()),
				"msgs/s", Report.Better.HIGHER, measured, null,
				String.format(Locale.ROOT, "limit %.0f: %+.2f %% (target ±5 %%); instances %d / %d; the window opens "
						+ "%d s after the first start (the saved-up second spent); Redisson has no rate limit",
						this.rate, deviation, perInstance[0], perInstance[1], SETTLE.toSeconds()));
		this.report.detail("rate-limit", Map.of("limit", this.rate, "measured", measured, "deviationPercent",
				deviation, "instance0", perInstance[0], "instance1", perInstance[1]));
		admin.setLimits(TOPIC, TopicLimits.NONE);
	}

}
