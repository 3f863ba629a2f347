package io.github.delayqueue.benchmarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

import io.github.delayqueue.benchmarks.Measurements.DrainFigures;
import io.github.delayqueue.benchmarks.QueueUnderTest.Message;

/**
 * The loads a system under test is put through: single-message schedules from several threads, messages sent at a
 * steady rate and consumed, and a drain of messages that fall due within one second. Each returns what it
 * measured; none compares systems.
 */
final class Workloads {

	static final long DAY_MILLIS = TimeUnit.DAYS.toMillis(1);

	static final int CONSUMER_THREADS = 8;

	/** Seed of the random-order drain's shuffle: the same order in every run and for both systems. */
	private static final long DRAIN_SHUFFLE_SEED = 20_240_601L;

	private final Settings settings;

	private final Costs costs;

	private final Consumer<String> notes;

	/**
	 * Creates the loads.
	 * @param settings the sizes, and the delays of paced messages
	 * @param costs the meter of a drain's cost
	 * @param notes where what a load notices on the way goes (for the report's notes)
	 */
	Workloads(Settings settings, Costs costs, Consumer<String> notes) {
		this.settings = settings;
		this.costs = costs;
		this.notes = notes;
	}

	/** Schedules {@code n} messages due in a day, one call each, from some threads; returns messages per second. */
	double scheduleSingly(QueueUnderTest queue, int n, int threads, String prefix) {
		List<Thread> senders = new ArrayList<>();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long dueAt = System.currentTimeMillis() + DAY_MILLIS;
		long start = System.nanoTime();
		for (int t = 0; t < threads; t++) {
			int first = t;
			Thread sender = new Thread(() -> {
				try {
					for (int i = first; i < n; i += threads) {
						queue.schedule(Message.dueAtMicros(id(prefix, i), dueAt * 1000), DAY_MILLIS);
					}
				}
				catch (Throwable ex) {
					failure.compareAndSet(null, ex);
				}
			});
			sender.start();
			senders.add(sender);
		}
		joinAll(senders);
		double rate = n / seconds(start);
		if (failure.get() != null) {
			throw new IllegalStateException(queue.name() + " failed to schedule", failure.get());
		}
		return rate;
	}

	/** Messages {@code from} to {@code to} (exclusive) with the prefix, due in a day. */
	static List<Message> farFuture(String prefix, int from, int to) {
		long dueAt = System.currentTimeMillis() + DAY_MILLIS;
		List<Message> messages = new ArrayList<>(to - from);
		for (int i = from; i < to; i++) {
			messages.add(Message.dueAtMicros(id(prefix, i), dueAt * 1000));
		}
		return messages;
	}

	/**
	 * Sends {@code total} messages at a steady rate with random delays, consumes them, and counts.
	 */
	Tally.Paced paced(QueueUnderTest queue, String prefix, int total, int rate, int senders, int consumerThreads,
			long extraWaitMillis) {
		Tally tally = new Tally(total);
		AtomicReference<Throwable> failure = new AtomicReference<>();
		long sendNanos;
		Costs.Cost cost;
		try (QueueUnderTest.Consumer consumer = queue.consume(consumerThreads, tally::handle)) {
			Costs.Interval interval = this.costs.start(queue.name());
			long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100);
			List<Thread> threads = new ArrayList<>();
			for (int t = 0; t < senders; t++) {
				int first = t;
				Thread sender = new Thread(() -> {
					ThreadLocalRandom random = ThreadLocalRandom.current();
					try {
						for (int i = first; i < total; i += senders) {
							long target = start + (long) (i * (1e9 / rate));
							long wait = target - System.nanoTime();
							if (wait > 0) {
								LockSupport.parkNanos(wait);
							}
							long delay = random.nextLong(this.settings.minDelayMillis(),
									this.settings.maxDelayMillis() + 1);
							// the intended due time to the microsecond: the moment of the request plus the delay (read
							// to the millisecond, it would be up to 1 ms before the request, and late deliveries would
							// look up to 1 ms later than they are)
							long dueMicros = nowMicros() + delay * 1000;
							queue.schedule(Message.dueAtMicros(id(prefix, i), dueMicros), delay);
						}
					}
					catch (Throwable ex) {
						failure.compareAndSet(null, ex);
					}
				});
				sender.start();
				threads.add(sender);
			}
			joinAll(threads);
			sendNanos = System.nanoTime() - start;
			if (failure.get() != null) {
				throw new IllegalStateException(queue.name() + " failed to schedule", failure.get());
			}
			long deadline = System.nanoTime()
					+ TimeUnit.MILLISECONDS.toNanos(this.settings.maxDelayMillis() + extraWaitMillis);
			while (tally.unique.get() < total && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
			cost = interval.stop(total);
			// a moment more, so that a duplicate right behind the last message is seen
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
		}
		Tally.Paced result = tally.result(total, total / (sendNanos / 1e9), cost);
		Benchmarks.log(queue.name() + " paced " + prefix + ": " + result);
		return result;
	}

	/** Time from the consumer's start to the first due message: enough to store them all. */
	static long drainLead(int n) {
		return Math.max(2_000, n / 10);
	}

	/**
	 * Stores {@code n} messages due within one second, then measures how fast they are handled.
	 * @param randomOrder {@code false}: stored in due order (Redisson's best case: its transfer script LREMs each
	 * due message from a list kept in insertion order, so it finds each one at the head); {@code true}: the same
	 * messages and due times, stored in an order shuffled with a fixed seed (each LREM scans far)
	 * @param excludedCpuNanos CPU time of this JVM's threads that are not the system's (the proxy's)
	 * @param leadMillis time from the consumer's start to the first due time
	 */
	DrainFigures drain(QueueUnderTest queue, int n, boolean randomOrder, LongSupplier excludedCpuNanos,
			long leadMillis) {
		Tally tally = new Tally(n);
		long firstDue;
		double fillSeconds;
		Costs.Cost cost;
		try (QueueUnderTest.Consumer consumer = queue.consume(CONSUMER_THREADS, tally::handle)) {
			firstDue = System.currentTimeMillis() + leadMillis;
			List<Message> messages = new ArrayList<>(n);
			for (int i = 0; i < n; i++) {
				long dueAt = firstDue + (i * 1000L) / n;
				messages.add(new Message(id("d-", i), id("d-", i) + "|" + dueAt * 1000, dueAt));
			}
			if (randomOrder) {
				Collections.shuffle(messages, new Random(DRAIN_SHUFFLE_SEED));
			}
			long start = System.nanoTime();
			queue.scheduleMany(messages);
			fillSeconds = seconds(start);
			if (System.currentTimeMillis() > firstDue) {
				this.notes.accept(queue.name() + ": storing the drain's messages took longer than planned; some were "
						+ "due before all were stored");
			}
			long idle = firstDue - 100 - System.currentTimeMillis();
			if (idle > 0) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(idle));
			}
			Costs.Interval interval = this.costs.start(queue.name(), excludedCpuNanos);
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(
					firstDue - System.currentTimeMillis() + 1_000 + Math.max(60_000, n * 2L));
			while (tally.unique.get() < n && System.nanoTime() < deadline) {
				LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
			}
			LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
			cost = interval.stop(tally.unique.get());
		}
		double seconds = (tally.lastHandledMicros.get() - firstDue * 1000.0) / 1e6;
		DrainFigures result = new DrainFigures(randomOrder ? "random (seed " + DRAIN_SHUFFLE_SEED + ")" : "due",
				fillSeconds, tally.unique.get() / Math.max(seconds, 1e-3), tally.result(n, 0), cost, null);
		Benchmarks.log(queue.name() + (randomOrder ? " drain in random order: " : " drain: ") + result);
		return result;
	}

	private static void joinAll(List<Thread> threads) {
		for (Thread thread : threads) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted", ex);
			}
		}
	}

	static String id(String prefix, int i) {
		// zero-padded to seven digits, without String.format: the harness's own allocation counts in the system's
		String digits = Integer.toString(i);
		return prefix + "0000000".substring(Math.min(7, digits.length())) + digits;
	}

	static long nowMicros() {
		Instant now = Instant.now();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
	}

	static double seconds(long startNanos) {
		return (System.nanoTime() - startNanos) / 1e9;
	}

}
