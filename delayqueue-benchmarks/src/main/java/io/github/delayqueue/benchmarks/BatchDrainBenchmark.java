package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DelayedBatchHandler;
import io.github.delayqueue.listener.DelayedMessageHandler;
import io.github.delayqueue.listener.ListenerOptions;

/**
 * Batch listeners (delayqueue only): a drain of due messages by a listener that takes one message per call, and by
 * one that takes up to {@value #MAX_PER_CALL} per call, same run, same 8 handler threads, handlers that do nothing
 * but count. Each row says the rate, the handler calls per message, and the Redis and client CPU per message.
 */
final class BatchDrainBenchmark {

	private static final String SECTION = "12. Batch listeners: a drain by one message per call and by batches";

	private static final int THREADS = 8;

	private static final int MAX_PER_CALL = 100;

	private static final String PAYLOAD = "order-timeout-payload-0000042";

	private final DelayQueueSystem system;

	private final AdminConnection admin;

	private final Report report;

	private final int backlog;

	BatchDrainBenchmark(DelayQueueSystem system, AdminConnection admin, Report report, int backlog) {
		this.system = system;
		this.admin = admin;
		this.report = report;
		this.backlog = backlog;
	}

	void run() {
		Drained single = drain("batch-single", false);
		Drained batch = drain("batch-many", true);
		this.report.row(SECTION, String.format(Locale.ROOT, "drain of %,d due messages, one message per call",
				this.backlog), "msgs/s", Report.Better.HIGHER, single.rate(), null, single.note());
		this.report.row(SECTION, String.format(Locale.ROOT, "the same, a batch listener of up to %d per call",
				MAX_PER_CALL), "msgs/s", Report.Better.HIGHER, batch.rate(), null, batch.note()
						+ String.format(Locale.ROOT, "; %.2f× the one-message listener", batch.rate() / single.rate()));
		this.report.row(SECTION, "Redis CPU per message, one message per call", "µs/msg", Report.Better.LOWER,
				single.redisCpuMicros(), null, null);
		this.report.row(SECTION, "Redis CPU per message, batch listener", "µs/msg", Report.Better.LOWER,
				batch.redisCpuMicros(), null, null);
		this.report.detail("batch-drain", Map.of("singleRate", single.rate(), "batchRate", batch.rate(),
				"singleCallsPerMessage", single.callsPerMessage(), "batchCallsPerMessage", batch.callsPerMessage(),
				"singleRedisCpuMicros", single.redisCpuMicros(), "batchRedisCpuMicros", batch.redisCpuMicros()));
	}

	/** Schedules the backlog due in a second, then drains it; the rate from the due time or the start, whichever is
	 * later. */
	private Drained drain(String topic, boolean batch) {
		this.admin.flush();
		Instant due = Instant.now().plusSeconds(1);
		DueBacklog backlog = DueBacklog.schedule(this.system.queue(), topic, this.backlog, PAYLOAD, due);
		AtomicLong calls = new AtomicLong();
		DelayedMessageHandler<String> handler;
		if (batch) {
			handler = (DelayedBatchHandler<String>) (payloads, messages) -> {
				calls.incrementAndGet();
				for (DeliveredMessage message : messages) {
					backlog.handled(message.id());
				}
			};
		}
		else {
			handler = (payload, message) -> {
				calls.incrementAndGet();
				backlog.handled(message.id());
			};
		}
		ListenerOptions options = ListenerOptions.builder()
			.concurrency(THREADS)
			.batchMaxMessages(MAX_PER_CALL)
			.handlerTimeout(Duration.ofSeconds(30))
			.build();
		long cpuBefore = DueBacklog.processCpuNanos();
		double redisBefore = this.admin.cpuSeconds();
		long startedMillis = Math.max(due.toEpochMilli(), System.currentTimeMillis());
		long finished;
		try (QueueUnderTest.Consumer consumer = this.system.consume(topic, options, handler)) {
			if (!backlog.done().await(10, TimeUnit.MINUTES)) {
				throw new IllegalStateException("The batch drain did not finish within 10 minutes");
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
		double redisCpuMicros = (this.admin.cpuSeconds() - redisBefore) * 1e6 / this.backlog;
		double cpuMicros = (DueBacklog.processCpuNanos() - cpuBefore) / 1e3 / this.backlog;
		double seconds = Math.max(1e-3, (finished - startedMillis) / 1e3);
		Drained drained = new Drained(this.backlog / seconds, calls.get() / (double) this.backlog, redisCpuMicros,
				cpuMicros, backlog.duplicates());
		Benchmarks.log(String.format(Locale.ROOT, "batch drain, %s: %,d messages at %.0f msgs/s; %s",
				batch ? "batches" : "one per call", this.backlog, drained.rate(), drained.note()));
		this.admin.flush();
		return drained;
	}

	private record Drained(double rate, double callsPerMessage, double redisCpuMicros, double cpuMicros,
			int duplicates) {

		String note() {
			return String.format(Locale.ROOT, "%d handler threads; %.3f handler calls per message; Redis CPU %.1f "
					+ "µs/msg; client CPU %.1f µs/msg; %d duplicates", THREADS, this.callsPerMessage,
					this.redisCpuMicros, this.cpuMicros, this.duplicates);
		}

	}

}
