package io.github.delayqueue.faults;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The steady load: one thread scheduling {@code rate} messages a second, each due {@code minDelay..maxDelay} ms after
 * it is sent (an explicit due time, so the suite knows it exactly). It remembers every message the queue
 * acknowledged; a call that failed is counted and not retried (a real producer would retry it under the same id).
 */
final class Producer implements AutoCloseable {

	private final QueueClient client;

	private final Sizes sizes;

	private final Map<String, Long> sent = new ConcurrentHashMap<>();

	private final Map<String, Long> sentAt = new ConcurrentHashMap<>();

	private final Map<String, Integer> generations = new ConcurrentHashMap<>();

	private final Map<String, String> poisons = new ConcurrentHashMap<>();

	private final AtomicLong sequence = new AtomicLong();

	private final AtomicInteger failedCalls = new AtomicInteger();

	private final Thread thread;

	private volatile boolean running = true;

	Producer(QueueClient client, Sizes sizes) {
		this.client = client;
		this.sizes = sizes;
		this.thread = new Thread(this::produce, "producer");
		this.thread.start();
	}

	private void produce() {
		long interval = 1_000_000_000L / this.sizes.rate();
		long next = System.nanoTime();
		while (this.running) {
			send("m-" + this.sequence.getAndIncrement(), 0);
			next += interval;
			long wait = next - System.nanoTime();
			if (wait > 0) {
				LockSupport.parkNanos(wait);
			}
			else if (-wait > 1_000_000_000L) {
				// fell more than a second behind (Redis stalled): go on at the rate, without a burst
				next = System.nanoTime();
			}
		}
	}

	private boolean send(String id, int generation) {
		return send(id, generation, System.currentTimeMillis() + ThreadLocalRandom.current()
			.nextLong(this.sizes.minDelayMillis(), this.sizes.maxDelayMillis() + 1));
	}

	private boolean send(String id, int generation, long due) {
		String key = id + '#' + generation;
		try {
			if (this.client.send(id, new Work(key, due, Work.NORMAL))) {
				this.sent.put(key, due);
				this.sentAt.put(key, System.currentTimeMillis());
				this.generations.put(id, generation);
				return true;
			}
			return false;
		}
		catch (RuntimeException ex) {
			this.failedCalls.incrementAndGet();
			return false;
		}
	}

	/**
	 * Schedules again, as a new generation, the ids of the messages sent in a time window that are no longer
	 * waiting (an id still waiting is refused by the queue and skipped).
	 * @param fromMillis the window's start, epoch milliseconds
	 * @param toMillis its end
	 * @return how many ids were scheduled again
	 */
	int resendSentBetween(long fromMillis, long toMillis) {
		List<String> ids = new ArrayList<>();
		this.sentAt.forEach((key, at) -> {
			if (at >= fromMillis && at < toMillis && key.endsWith("#0")) {
				ids.add(Work.idOf(key));
			}
		});
		return resend(ids);
	}

	private int resend(Collection<String> ids) {
		int resent = 0;
		for (String id : ids) {
			if (send(id, this.generations.getOrDefault(id, 0) + 1)) {
				resent++;
			}
		}
		return resent;
	}

	/**
	 * Schedules a burst of messages all due at the same moment, beside the steady load.
	 * @param count how many
	 * @param due when, epoch milliseconds
	 */
	void sendBurst(int count, long due) {
		for (int i = 0; i < count; i++) {
			send("m-" + this.sequence.getAndIncrement(), 0, due);
		}
	}

	/**
	 * Schedules poison messages due in {@code minDelay} ms.
	 * @param kind {@link Work#THROW}, {@link Work#CRASH} or {@code unreadable}
	 * @param count how many
	 */
	void sendPoison(String kind, int count) {
		for (int i = 0; i < count; i++) {
			String id = "poison-" + kind + "-" + this.sequence.getAndIncrement();
			long due = System.currentTimeMillis() + this.sizes.minDelayMillis();
			if ("unreadable".equals(kind)) {
				this.client.sendUnreadable(id, due);
			}
			else {
				this.client.send(id, new Work(id + "#0", due, kind));
			}
			this.poisons.put(id, kind);
		}
	}

	/** Stops producing and waits for the thread. */
	@Override
	public void close() {
		this.running = false;
		try {
			this.thread.join(30_000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The acknowledged messages.
	 * @return key to due time (epoch milliseconds)
	 */
	Map<String, Long> sent() {
		return this.sent;
	}

	/**
	 * The poison messages sent.
	 * @return id to kind
	 */
	Map<String, String> poisons() {
		return this.poisons;
	}

	int failedCalls() {
		return this.failedCalls.get();
	}

	/**
	 * The latest due time of the acknowledged messages.
	 * @return epoch milliseconds, or 0 if none was sent
	 */
	long lastDue() {
		return this.sent.values().stream().mapToLong(Long::longValue).max().orElse(0);
	}

}
