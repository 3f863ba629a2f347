package io.github.delayqueue.listener;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The default prefetch grows only while claims, not handlers, limit the throughput, and never past its bounds; a
 * batch size set on the listener stays as it is.
 */
class PrefetchTests {

	private final AtomicLong now = new AtomicLong();

	@Test
	void quickHandlersBehindADistantRedisGrowThePrefetchToItsBound() {
		Prefetch prefetch = new Prefetch(ListenerOptions.builder().concurrency(8).build(), this.now::get);
		assertThat(prefetch.size()).isEqualTo(16);
		// handlers finish everything claimed; each claim takes 1.25 ms and brings half the batch
		for (int claim = 0; claim < 800; claim++) {
			for (int i = 0; i < prefetch.size() / 2; i++) {
				prefetch.completed();
			}
			this.now.addAndGet(TimeUnit.MICROSECONDS.toNanos(1250));
			prefetch.claimed(TimeUnit.MICROSECONDS.toNanos(1250));
		}
		assertThat(prefetch.size()).isEqualTo(Prefetch.MAX_ADAPTIVE);
		assertThat(prefetch.share(3)).isEqualTo(43);
	}

	@Test
	void slowHandlersNearRedisKeepTwiceTheConcurrency() {
		Prefetch prefetch = new Prefetch(ListenerOptions.builder().concurrency(8).build(), this.now::get);
		// 8 handlers of 100 ms: 80 messages a second; claims take 0.2 ms
		for (int tick = 0; tick < 100; tick++) {
			this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
			for (int i = 0; i < 8; i++) {
				prefetch.completed();
			}
			prefetch.claimed(TimeUnit.MICROSECONDS.toNanos(200));
		}
		assertThat(prefetch.size()).isEqualTo(16);
	}

	@Test
	void aBatchSizeSetOnTheListenerIsFixed() {
		Prefetch prefetch = new Prefetch(ListenerOptions.builder().concurrency(8).batchSize(10).build(), this.now::get);
		for (int claim = 0; claim < 50; claim++) {
			for (int i = 0; i < 100; i++) {
				prefetch.completed();
			}
			this.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(60));
			prefetch.claimed(TimeUnit.MILLISECONDS.toNanos(5));
		}
		assertThat(prefetch.size()).isEqualTo(10);
	}

}
