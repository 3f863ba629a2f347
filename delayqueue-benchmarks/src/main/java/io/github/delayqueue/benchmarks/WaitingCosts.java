package io.github.delayqueue.benchmarks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.delayqueue.benchmarks.QueueUnderTest.Message;

/**
 * What single operations cost with many messages waiting: the size scenario's load. Cancelling is where the systems
 * differ most (Redisson's {@code remove} scans its whole list), so its samples are bounded in time.
 */
final class WaitingCosts {

	private static final int FILL_CHUNK = 100_000;

	private final Settings settings;

	private final Consumer<String> notes;

	/**
	 * Creates the load.
	 * @param settings the number of samples
	 * @param notes where what it notices goes (for the report's notes)
	 */
	WaitingCosts(Settings settings, Consumer<String> notes) {
		this.settings = settings;
		this.notes = notes;
	}

	/**
	 * Fills the queue with {@code size} messages due in a day, then times single operations.
	 * @param queue the system, empty
	 * @param size the messages waiting
	 * @return per operation ({@code claim}, ours only; {@code schedule}, {@code cancel}, {@code deliver}), the
	 * summary of its latencies in microseconds
	 */
	Map<String, Samples.Summary> measure(QueueUnderTest queue, int size) {
		long start = System.nanoTime();
		for (int from = 0; from < size; from += FILL_CHUNK) {
			queue.scheduleMany(Workloads.farFuture("w-", from, Math.min(size, from + FILL_CHUNK)));
		}
		Benchmarks.log(String.format(Locale.ROOT, "%s: %,d waiting after %.1f s", queue.name(), size,
				Workloads.seconds(start)));
		Map<String, Samples.Summary> result = new LinkedHashMap<>();
		int samples = this.settings.latencySamples();
		if (queue instanceof DelayQueueSystem ours) {
			Samples claim = new Samples();
			for (int i = 0; i < samples; i++) {
				claim.add(ours.claimOneNanos(Workloads.id("k-", i)) / 1000);
			}
			result.put("claim", claim.summary());
		}
		Samples schedule = new Samples();
		List<Message> scheduled = Workloads.farFuture("s-", 0, samples);
		for (Message message : scheduled) {
			long begin = System.nanoTime();
			queue.schedule(message, Workloads.DAY_MILLIS);
			schedule.add((System.nanoTime() - begin) / 1000);
		}
		result.put("schedule", schedule.summary());
		result.put("cancel", cancelSamples(queue, scheduled));
		result.put("deliver", deliverSamples(queue, size, samples));
		Benchmarks.log(queue.name() + " at " + size + ": " + result);
		return result;
	}

	private Samples.Summary cancelSamples(QueueUnderTest queue, List<Message> scheduled) {
		Samples cancel = new Samples();
		boolean slow = !(queue instanceof DelayQueueSystem);
		int cancels = slow ? this.settings.slowSamples() : scheduled.size();
		long budget = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		int missed = 0;
		for (int i = 0; i < cancels && System.nanoTime() < budget; i++) {
			long begin = System.nanoTime();
			boolean cancelled = queue.cancel(scheduled.get(i));
			cancel.add((System.nanoTime() - begin) / 1000);
			if (!cancelled && !slow) {
				throw new IllegalStateException(queue.name() + " did not cancel " + scheduled.get(i).id());
			}
			missed += cancelled ? 0 : 1;
		}
		if (missed > 0) {
			// Redisson's remove answered false for a message it holds (seen once under load): noted, not fatal
			this.notes.accept(String.format(Locale.ROOT, "%s: remove returned false for %d of the %,d waiting messages it was "
					+ "asked to cancel", queue.name(), missed, cancel.summary().count()));
		}
		return cancel.summary();
	}

	private Samples.Summary deliverSamples(QueueUnderTest queue, int size, int samples) {
		Samples deliver = new Samples();
		AtomicReference<CountDownLatch> arrived = new AtomicReference<>();
		try (QueueUnderTest.Consumer consumer = queue.consume(Workloads.CONSUMER_THREADS, (payload, storedDue) -> {
			CountDownLatch latch = arrived.get();
			if (latch != null && Message.idOf(payload).startsWith("n-")) {
				latch.countDown();
			}
		})) {
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(300));
			for (int i = 0; i < Math.min(50, samples); i++) {
				CountDownLatch latch = new CountDownLatch(1);
				arrived.set(latch);
				long begin = System.nanoTime();
				queue.schedule(Message.dueAtMicros(Workloads.id("n-", i), System.currentTimeMillis() * 1000), 0);
				try {
					if (!latch.await(30, TimeUnit.SECONDS)) {
						this.notes.accept(queue.name() + ": a due message was not delivered within 30 s with " + size + " waiting");
						break;
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					break;
				}
				deliver.add((System.nanoTime() - begin) / 1000);
			}
		}
		return deliver.summary();
	}

}
