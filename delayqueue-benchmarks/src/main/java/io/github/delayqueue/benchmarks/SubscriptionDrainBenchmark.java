package io.github.delayqueue.benchmarks;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.Topics;
import io.github.delayqueue.listener.ListenerOptions;

/**
 * Subscriptions (delayqueue only): a drain of due messages by a topic's one subscription, and by each of two
 * subscriptions of another topic consumed at once (two services, each its own instance with 8 handler threads), same
 * run; and the Redis memory per waiting message of a topic without subscriptions and with two, which fan-out at due
 * time keeps the same.
 */
final class SubscriptionDrainBenchmark {

	private static final String SECTION = "13. Subscriptions: a drain by one subscription and by each of two";

	private static final int THREADS = 8;

	private static final String PAYLOAD = "order-timeout-payload-0000042";

	private final DelayQueueSystem system;

	private final AdminConnection admin;

	private final Report report;

	private final int backlog;

	SubscriptionDrainBenchmark(DelayQueueSystem system, AdminConnection admin, Report report, int backlog) {
		this.system = system;
		this.admin = admin;
		this.report = report;
		this.backlog = backlog;
	}

	void run() {
		double plainBytes = waitingBytes("sub-bytes-none", List.of());
		double fannedBytes = waitingBytes("sub-bytes-two", List.of("billing", "notifications"));
		// the first drain of a JVM runs cold: a drain of each kind first, not reported, then the two measured
		drain("sub-warm-one", List.of("only"), this.backlog / 5);
		drain("sub-warm-two", List.of("billing", "notifications"), this.backlog / 5);
		List<Drained> one = drain("sub-one", List.of("only"), this.backlog);
		List<Drained> two = drain("sub-two", List.of("billing", "notifications"), this.backlog);
		Drained single = one.get(0);
		this.report.row(SECTION, String.format(Locale.ROOT, "drain of %,d due messages by a topic's one subscription",
				this.backlog), "msgs/s", Report.Better.HIGHER, single.rate(), null, single.note());
		for (Drained each : two) {
			this.report.row(SECTION, "the same, by each of two subscriptions at once: " + each.subscription(), "msgs/s",
					Report.Better.HIGHER, each.rate(), null, each.note() + String.format(Locale.ROOT,
							"; %.2f× the one subscription's", each.rate() / single.rate()));
		}
		this.report.row(SECTION, "Redis memory per waiting message, no subscription", "B", Report.Better.LOWER,
				plainBytes, null, "30-byte payload");
		this.report.row(SECTION, "Redis memory per waiting message, two subscriptions", "B", Report.Better.LOWER,
				fannedBytes, null, String.format(Locale.ROOT, "%+.1f B against none: a message fans out when it "
						+ "falls due", fannedBytes - plainBytes));
		this.report.detail("subscription-drain", Map.of("oneRate", single.rate(), "twoRates",
				two.stream().map(Drained::rate).toList(), "plainBytes", plainBytes, "fannedBytes", fannedBytes));
	}

	/** Redis memory per message of a backlog waiting (due in an hour) in a topic with the given subscriptions. */
	private double waitingBytes(String topic, List<String> subscriptions) {
		this.admin.flush();
		subscriptions.forEach((name) -> this.system.admin().declareSubscription(topic, name));
		long before = this.admin.usedMemory();
		DueBacklog.schedule(this.system.queue(), topic, this.backlog, PAYLOAD, Instant.now().plus(Duration.ofHours(1)));
		double bytes = (this.admin.usedMemory() - before) / (double) this.backlog;
		this.admin.flush();
		return bytes;
	}

	/**
	 * Declares the subscriptions, schedules the backlog due in a second, then drains it with one consumer per
	 * subscription at once; each subscription's rate from the due time (or the start) to its last message.
	 */
	private List<Drained> drain(String topic, List<String> subscriptions, int count) {
		this.admin.flush();
		subscriptions.forEach((name) -> this.system.admin().declareSubscription(topic, name));
		Instant due = Instant.now().plusSeconds(1);
		DueBacklog first = DueBacklog.schedule(this.system.queue(), topic, count, PAYLOAD, due);
		List<DueBacklog> backlogs = new ArrayList<>();
		backlogs.add(first);
		for (int i = 1; i < subscriptions.size(); i++) {
			backlogs.add(DueBacklog.counting(count));
		}
		ListenerOptions options = ListenerOptions.builder().concurrency(THREADS).build();
		long cpuBefore = DueBacklog.processCpuNanos();
		double redisBefore = this.admin.cpuSeconds();
		long startedMillis = Math.max(due.toEpochMilli(), System.currentTimeMillis());
		List<QueueUnderTest.Consumer> consumers = new ArrayList<>();
		long[] finished = new long[subscriptions.size()];
		try {
			for (int i = 0; i < subscriptions.size(); i++) {
				DueBacklog backlog = backlogs.get(i);
				consumers.add(this.system.consume(Topics.subscriptionName(topic, subscriptions.get(i)), options,
						(payload, message) -> backlog.handled(message.id())));
			}
			for (int i = 0; i < subscriptions.size(); i++) {
				if (!backlogs.get(i).done().await(10, TimeUnit.MINUTES)) {
					throw new IllegalStateException("The subscription drain did not finish within 10 minutes");
				}
				finished[i] = backlogs.get(i).finishedMillis();
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		finally {
			for (QueueUnderTest.Consumer consumer : consumers) {
				try {
					consumer.close();
				}
				catch (Exception ex) {
					Benchmarks.log("closing a consumer failed: " + ex);
				}
			}
		}
		double redisCpuMicros = (this.admin.cpuSeconds() - redisBefore) * 1e6 / count;
		double cpuMicros = (DueBacklog.processCpuNanos() - cpuBefore) / 1e3 / count;
		List<Drained> drained = new ArrayList<>();
		for (int i = 0; i < subscriptions.size(); i++) {
			double seconds = Math.max(1e-3, (finished[i] - startedMillis) / 1e3);
			Drained each = new Drained(subscriptions.get(i), count / seconds, redisCpuMicros, cpuMicros,
					backlogs.get(i).duplicates(), subscriptions.size());
			Benchmarks.log(String.format(Locale.ROOT, "subscription drain, %s of %d: %,d messages at %.0f msgs/s; %s",
					each.subscription(), subscriptions.size(), count, each.rate(), each.note()));
			drained.add(each);
		}
		this.admin.flush();
		return drained;
	}

	private record Drained(String subscription, double rate, double redisCpuMicros, double cpuMicros,
			int duplicates, int subscriptions) {

		String note() {
			return String.format(Locale.ROOT, "%d handler threads per subscription; Redis CPU %.1f µs per topic "
					+ "message (%d subscription(s)); client CPU %.1f µs; %d duplicates", THREADS, this.redisCpuMicros,
					this.subscriptions, this.cpuMicros, this.duplicates);
		}

	}

}
