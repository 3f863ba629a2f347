package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.redis.Claim;
import io.github.delayqueue.redis.ClaimedMessage;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.test.TestRedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class AcknowledgerTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.appendOnly();

	private static final String TOPIC = "acks";

	private static final ListenerOptions OPTIONS = ListenerOptions.builder()
		.visibilityTimeout(Duration.ofMinutes(1))
		.build();

	private RedisFixture fixture;

	private RedisMessageStore store;

	private ScheduledExecutorService maintenance;

	private final List<Claim> claims = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.maintenance = Executors.newSingleThreadScheduledExecutor();
	}

	@AfterEach
	void tearDown() {
		this.maintenance.shutdownNow();
		this.fixture.close();
	}

	@Test
	void aHandOverAcknowledgesTheDeliveredMessageAndLeasesTheNextDueOne() {
		schedule("first");
		schedule("second");
		Acknowledger acknowledger = acknowledger();
		ClaimedMessage first = this.store.claim(TOPIC, 1, 60_000, 10).messages().get(0);
		Delivery next = acknowledger.handOver(first.lease(), true);
		assertThat(next).isNotNull();
		assertThat(next.message().id()).isEqualTo("second");
		assertThat(next.message().attempt()).isEqualTo(1);
		assertThat(this.claims).hasSize(1);
		// nothing more is due: acknowledged, and no next message
		assertThat(acknowledger.handOver(next.message().lease(), true)).isNull();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	@Test
	void anAcknowledgementThatFailsIsTriedAgainUntilRedisIsBack() {
		schedule("kept");
		Acknowledger acknowledger = acknowledger();
		ClaimedMessage kept = this.store.claim(TOPIC, 1, 60_000, 10).messages().get(0);
		redis.get().stop();
		try {
			acknowledger.acknowledgeLater(kept.lease());
			await().atMost(Duration.ofSeconds(10)).until(() -> acknowledger.pendingCount() == 1);
		}
		finally {
			redis.get().start();
		}
		// acknowledged once Redis answers again, long before its lease would have ended
		await().atMost(Duration.ofSeconds(20)).until(() -> acknowledger.pendingCount() == 0
				&& RedisFixture.keysOf(redis.get(), TOPIC).isEmpty());
	}

	private Acknowledger acknowledger() {
		Acknowledger acknowledger = new Acknowledger(TOPIC, this.store, OPTIONS, new SuspectGate(), (claim, sent) -> {
			this.claims.add(claim);
			long now = System.nanoTime();
			return claim.messages().stream().map((message) -> new Delivery(message, claim.serverTime(), now)).toList();
		}, () -> {
		});
		acknowledger.start(Runnable::run, this.maintenance);
		return acknowledger;
	}

	private void schedule(String id) {
		this.store.schedule(TOPIC, List.of(new NewMessage(id, DueTime.in(0), Instant.now(), Map.of(), new byte[] { '1' })));
	}

}
