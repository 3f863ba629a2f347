package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.Lease;
import io.github.delayqueue.redis.StoredMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A partition's local batch: a suspect always starts first, whatever was put back meanwhile.
 */
class LocalBatchTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final AtomicInteger listenerWaiting = new AtomicInteger();

	private final LocalBatch batch = new LocalBatch(new LeaseKeeper("t",
			this.fixture.store(this.fixture.connectionFactory()), Duration.ofSeconds(30), new CrashIsolation()),
			this.listenerWaiting, () -> {
			});

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aBatchedMessagePutBackAfterASuspectArrivedDoesNotQueueBeforeIt() {
		this.batch.accept(claim(message("batched", false)), System.nanoTime());
		Delivery batched = this.batch.poll(true);
		assertThat(batched).isNotNull();
		// a claim leased a suspect meanwhile: the batched message may not start, and goes back
		this.batch.accept(claim(message("suspect", true)), System.nanoTime());
		this.batch.putBack(batched);

		Delivery next = this.batch.poll(false);
		assertThat(next).as("the suspect starts while batched messages may not").isNotNull();
		assertThat(next.message().id()).isEqualTo("suspect");
		assertThat(this.batch.poll(false)).isNull();
		assertThat(this.batch.poll(true).message().id()).isEqualTo("batched");
		assertThat(this.listenerWaiting).hasValue(0);
	}

	@Test
	void handingBackTakesTheSuspectToo() {
		this.batch.accept(claim(message("a", false), message("s", true)), System.nanoTime());
		assertThat(this.batch.waiting()).isEqualTo(2);
		assertThat(this.batch.isSuspectWaiting()).isTrue();
		this.batch.handBackWaiting();
		assertThat(this.batch.waiting()).isZero();
		assertThat(this.batch.isSuspectWaiting()).isFalse();
		assertThat(this.listenerWaiting).hasValue(0);
	}

	private static ClaimedMessage message(String id, boolean suspect) {
		return new ClaimedMessage(new Lease(id, 1), Instant.now(), 1,
				new StoredMessage(Instant.now(), Map.of(), "\"x\"".getBytes(), null), suspect);
	}

	private static Claim claim(ClaimedMessage... messages) {
		return new Claim(Instant.now(), List.of(messages), 1000, 0);
	}

}
