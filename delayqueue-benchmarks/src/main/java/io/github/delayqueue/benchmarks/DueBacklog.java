package io.github.delayqueue.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.core.RedisDelayedQueue;

/**
 * A backlog of messages due at one time, for the drains of one system (delayqueue's listener variants): stored in
 * batches of 1,000, then counted as they are handled, each id once, duplicates apart.
 */
final class DueBacklog {

	private final Set<String> seen;

	private final AtomicInteger duplicates = new AtomicInteger();

	private final CountDownLatch done;

	private final AtomicInteger remaining;

	private volatile long finishedMillis;

	private DueBacklog(int count) {
		this.seen = ConcurrentHashMap.newKeySet(count * 2);
		this.done = new CountDownLatch(count);
		this.remaining = new AtomicInteger(count);
	}

	/**
	 * Stores {@code count} messages with ids {@code m-0} and up, due at {@code due}.
	 * @return the backlog, counting deliveries from now
	 */
	static DueBacklog schedule(RedisDelayedQueue queue, String topic, int count, String payload, Instant due) {
		List<ScheduleRequest> requests = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			requests.add(ScheduleRequest.builder(topic, payload).id("m-" + i).dueAt(due).build());
		}
		for (int i = 0; i < requests.size(); i += 1000) {
			queue.scheduleAll(requests.subList(i, Math.min(requests.size(), i + 1000)));
		}
		return new DueBacklog(count);
	}

	/**
	 * Counts deliveries of {@code count} messages stored otherwise (a second subscription of the same messages).
	 * @return the backlog, counting deliveries from now
	 */
	static DueBacklog counting(int count) {
		return new DueBacklog(count);
	}

	/** A message was handled. */
	void handled(String id) {
		if (this.seen.add(id)) {
			// the last one's time, written before the latch opens (whoever awaits it reads it after)
			if (this.remaining.decrementAndGet() == 0) {
				this.finishedMillis = System.currentTimeMillis();
			}
			this.done.countDown();
		}
		else {
			this.duplicates.incrementAndGet();
		}
	}

	/** Each message handled at least once. */
	CountDownLatch done() {
		return this.done;
	}

	/** When the last message was first handled (epoch ms); 0 until then. */
	long finishedMillis() {
		return this.finishedMillis;
	}

	int duplicates() {
		return this.duplicates.get();
	}

	/** This JVM's CPU time, in nanoseconds; 0 where unknown. */
	static long processCpuNanos() {
		return (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
				? os.getProcessCpuTime() : 0;
	}

}
