package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
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
	void acknowledgementsRideOnTheNextClaimOrGoOnTheirOwnWhenNoneComes() {
		schedule("first");
		schedule("second");
		schedule("third");
		Acknowledger acknowledger = acknowledger();
		List<ClaimedMessage> batch = this.store.leases().claim(TOPIC, 3, 60_000, 10).messages();
		// a claim is coming: they wait for it
		acknowledger.claimExpected(true);
		acknowledger.acknowledge(batch.get(0).lease(), false);
		acknowledger.acknowledge(batch.get(1).lease(), false);
		assertThat(acknowledger.pendingCount()).isEqualTo(2);
		// a claim takes them along: one call acknowledges both
		List<Acknowledger.PendingAck> carried = acknowledger.takeForClaim();
		assertThat(carried).hasSize(2);
		this.store.leases().claim(TOPIC, Acknowledger.leases(carried), 0, 60_000, 10, true);
		assertThat(this.store.messages().stats(TOPIC).leased()).isEqualTo(1);
		assertThat(acknowledger.pendingCount()).isZero();
		// no claim coming any more: the last one goes on its own
		acknowledger.acknowledge(batch.get(2).lease(), false);
		assertThat(acknowledger.pendingCount()).isEqualTo(1);
		acknowledger.claimExpected(false);
		await().atMost(Duration.ofSeconds(10)).until(() -> acknowledger.pendingCount() == 0
				&& RedisFixture.keysOf(redis.get(), TOPIC).isEmpty());
	}

	@Test
	void acknowledgementsOfAFailedClaimAreTriedAgain() {
		schedule("kept");
		Acknowledger acknowledger = acknowledger();
		ClaimedMessage kept = this.store.leases().claim(TOPIC, 1, 60_000, 10).messages().get(0);
		acknowledger.claimExpected(true);
		acknowledger.acknowledge(kept.lease(), false);
		List<Acknowledger.PendingAck> carried = acknowledger.takeForClaim();
		acknowledger.claimFailed(carried, new IllegalStateException("claim failed"));
		await().atMost(Duration.ofSeconds(10)).until(() -> acknowledger.pendingCount() == 0
				&& RedisFixture.keysOf(redis.get(), TOPIC).isEmpty());
	}

	@Test
	void anAcknowledgementThatFailsIsTriedAgainUntilRedisIsBack() {
		schedule("kept");
		Acknowledger acknowledger = acknowledger();
		ClaimedMessage kept = this.store.leases().claim(TOPIC, 1, 60_000, 10).messages().get(0);
		redis.get().stop();
		try {
			// no claim coming: it goes on its own at once, and fails
			acknowledger.acknowledge(kept.lease(), false);
			await().atMost(Duration.ofSeconds(10)).until(() -> acknowledger.pendingCount() == 1);
		}
		finally {
			redis.get().start();
		}
		// acknowledged once Redis answers again, long before its lease would have ended
		await().atMost(Duration.ofSeconds(20)).until(() -> acknowledger.pendingCount() == 0
				&& RedisFixture.keysOf(redis.get(), TOPIC).isEmpty());
	}

	@Test
	void aSuspectsAcknowledgementIsInRedisWhenItReturnsWithWhatElseWaits() {
		schedule("batched");
		schedule("suspect");
		Acknowledger acknowledger = acknowledger();
		List<ClaimedMessage> leased = this.store.leases().claim(TOPIC, 2, 60_000, 10).messages();
		acknowledger.claimExpected(true);
		acknowledger.acknowledge(leased.get(0).lease(), false);
		assertThat(this.store.messages().stats(TOPIC).leased()).as("waits for the claim").isEqualTo(2);

		acknowledger.acknowledge(leased.get(1).lease(), true);

		assertThat(acknowledger.pendingCount()).isZero();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).as("both acknowledged before it returned").isEmpty();
	}

	private Acknowledger acknowledger() {
		Acknowledger acknowledger = new Acknowledger(TOPIC, this.store, OPTIONS.visibilityTimeout(),
				new LeaseKeeper(TOPIC, this.store, OPTIONS.visibilityTimeout(), new CrashIsolation()));
		acknowledger.start(Runnable::run, this.maintenance);
		return acknowledger;
	}

	private void schedule(String id) {
		this.store.messages().schedule(TOPIC, List.of(new NewMessage(id, DueTime.in(0), Instant.now(), Map.of(), new byte[] { '1' })));
	}

}
