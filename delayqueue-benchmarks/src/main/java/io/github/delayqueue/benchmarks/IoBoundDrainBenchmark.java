package io.github.delayqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.listener.AsyncDelayedMessageHandler;
import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.ListenerOptions;

/**
 * I/O-bound handlers (delayqueue only): a drain of due messages whose handling waits 10 ms for something outside the
 * JVM (a remote call, say). A listener whose handler returns a {@link CompletableFuture} that a timer completes 10 ms
 * later holds no thread while it waits, so with at most 1,000 messages in flight it is bounded by the wait and the
 * in-flight limit, not by its 8 threads; the same listener with a handler that blocks its thread for the 10 ms is
 * bounded by 8 threads / 10 ms = 800 msgs/s. Both with 8 handler threads, same run, the blocking one over fewer
 * messages (at 800 msgs/s the whole backlog would take minutes).
 */
final class IoBoundDrainBenchmark {

	private static final String SECTION = "9. I/O-bound handlers: work that completes 10 ms later, 8 handler threads";

	private static final int THREADS = 8;

	private static final int IN_FLIGHT = 1_000;

	private static final long WAIT_MILLIS = 10;

	private static final String PAYLOAD = "order-timeout-payload-0000042";

	private final DelayQueueSystem system;

	private final AdminConnection admin;

	private final Report report;

	private final int backlog;

	private final int blockingBacklog;

	IoBoundDrainBenchmark(DelayQueueSystem system, AdminConnection admin, Report report, int backlog) {
		this.system = system;
		this.admin = admin;
		this.report = report;
		this.backlog = backlog;
		this.blockingBacklog = Math.max(400, backlog / 12);
	}

	void run() {
		Drained blocking = drain("io-blocking", this.blockingBacklog, false);
		Drained async = drain("io-async", this.backlog, true);
		this.report.row(SECTION, String.format(Locale.ROOT,
				"drain of %,d due messages, handler completes a CompletableFuture 10 ms later, ≤ %,d in flight",
				this.backlog, IN_FLIGHT), "msgs/s", Report.Better.HIGHER, async.rate(), null,
				String.format(Locale.ROOT, "target ≥ 20,000 msgs/s; %d handler threads; client CPU %.1f µs/msg; "
						+ "%d duplicates", THREADS, async.cpuMicros(), async.duplicates()));
		this.report.row(SECTION, String.format(Locale.ROOT,
				"the same with a handler that blocks its thread for the 10 ms (%,d messages)", this.blockingBacklog),
				"msgs/s", Report.Better.HIGHER, blocking.rate(), null,
				String.format(Locale.ROOT, "at most %d threads / 10 ms = %,d msgs/s; the non-blocking listener %.1f×",
						THREADS, THREADS * 1000 / WAIT_MILLIS, async.rate() / blocking.rate()));
		this.report.detail("io-bound", Map.of("asyncRate", async.rate(), "blockingRate", blocking.rate(),
				"asyncCpuMicros", async.cpuMicros(), "blockingCpuMicros", blocking.cpuMicros()));
	}

	/** Schedules {@code count} messages due in a second, then drains them; the rate from their due time or the
	 * consumer's start, whichever is later. */
	private Drained drain(String topic, int count, boolean async) {
		this.admin.flush();
		Instant due = Instant.now().plusSeconds(1);
		DueBacklog backlog = DueBacklog.schedule(this.system.queue(), topic, count, PAYLOAD, due);
		ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
		DelayedMessageHandler<String> handler;
		if (async) {
			handler = (AsyncDelayedMessageHandler<String>) (payload, message) -> {
				CompletableFuture<Void> work = new CompletableFuture<>();
				timer.schedule(() -> {
					backlog.handled(message.id());
					work.complete(null);
				}, WAIT_MILLIS, TimeUnit.MILLISECONDS);
				return work;
			};
		}
		else {
			handler = (payload, message) -> {
				Thread.sleep(WAIT_MILLIS);
				backlog.handled(message.id());
			};
		}
		ListenerOptions options = ListenerOptions.builder()
			.concurrency(THREADS)
			.asyncConcurrency(IN_FLIGHT)
			.handlerTimeout(Duration.ofSeconds(30))
			.build();
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		long cpuBefore = DueBacklog.processCpuNanos();
		long startedMillis = Math.max(due.toEpochMilli(), System.currentTimeMillis());
		long finished;
		try (QueueUnderTest.Consumer consumer = this.system.consume(topic, options, handler)) {
			if (!backlog.done().await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The I/O-bound drain did not finish within 10 minutes");
			}
			finished = System.currentTimeMillis();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		finally {
			timer.shutdownNow();
		}
		double cpuMicros = (DueBacklog.processCpuNanos() - cpuBefore) / 1e3 / count;
		double seconds = Math.max(1e-3, (finished - startedMillis) / 1e3);
		double rate = count / seconds;
		Benchmarks.log(String.format(Locale.ROOT, "I/O-bound drain, %s: %,d messages at %.0f msgs/s, %.1f µs CPU per "
				+ "message (%d threads live)", async ? "non-blocking" : "blocking", count, rate, cpuMicros,
				threads.getThreadCount()));
		this.admin.flush();
		return new Drained(rate, cpuMicros, backlog.duplicates());
	}

	private record Drained(double rate, double cpuMicros, int duplicates) {
	}

}
