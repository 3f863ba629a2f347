package io.github.delayqueue.support.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class GroupCommitTests {

	@Test
	void aLoneCallerSendsItsOwnItemsAtOnce() {
		List<List<Integer>> calls = new ArrayList<>();
		GroupCommit<Integer, Integer> commit = new GroupCommit<>((items) -> {
			calls.add(items);
			return items.stream().map((item) -> item * 10).toList();
		}, 100, 2);
		assertThat(commit.submit(List.of(1, 2))).containsExactly(10, 20);
		assertThat(commit.submit(List.of(3))).containsExactly(30);
		assertThat(calls).containsExactly(List.of(1, 2), List.of(3));
	}

	@Test
	void concurrentCallersShareCallsAndEachGetsItsOwnResults() throws Exception {
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger maxInFlight = new AtomicInteger();
		AtomicInteger calls = new AtomicInteger();
		ConcurrentHashMap<Integer, Integer> sent = new ConcurrentHashMap<>();
		GroupCommit<Integer, Integer> commit = new GroupCommit<>((items) -> {
			maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
			calls.incrementAndGet();
			try {
				TimeUnit.MICROSECONDS.sleep(200);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			items.forEach((item) -> sent.merge(item, 1, Integer::sum));
			inFlight.decrementAndGet();
			return items.stream().map((item) -> -item).toList();
		}, 1000, 2);
		ExecutorService threads = Executors.newFixedThreadPool(16);
		CountDownLatch go = new CountDownLatch(1);
		List<Future<?>> futures = new ArrayList<>();
		for (int t = 0; t < 16; t++) {
			int first = t;
			futures.add(threads.submit(() -> {
				go.await();
				for (int i = first; i < 16_000; i += 16) {
					assertThat(commit.submit(List.of(i))).containsExactly(-i);
				}
				return null;
			}));
		}
		go.countDown();
		for (Future<?> future : futures) {
			future.get(60, TimeUnit.SECONDS);
		}
		threads.shutdown();
		assertThat(sent).hasSize(16_000).allSatisfy((item, times) -> assertThat(times).isOne());
		assertThat(maxInFlight.get()).isLessThanOrEqualTo(2);
		assertThat(calls.get()).as("submissions shared calls").isLessThan(16_000);
	}

	@Test
	void aFailedCallFailsItsSubmittersAndTheNextCallWorks() {
		AtomicInteger call = new AtomicInteger();
		GroupCommit<String, String> commit = new GroupCommit<>((items) -> {
			if (call.incrementAndGet() == 1) {
				throw new IllegalStateException("Redis is down");
			}
			return items;
		}, 10, 1);
		assertThatIllegalStateException().isThrownBy(() -> commit.submit(List.of("a"))).withMessage("Redis is down");
		assertThat(commit.submit(List.of("b"))).containsExactly("b");
	}

}
