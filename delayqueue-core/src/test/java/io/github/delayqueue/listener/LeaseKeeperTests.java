package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
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
import io.github.delayqueue.redis.internal.StoredEntry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class LeaseKeeperTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final String TOPIC = "keeper";

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
	void aHeldLeaseIsExtendedPastItsFirstDeadlineAndATakenOneIsNot() {
		ClaimedMessage kept = claim("kept", 300);
		ClaimedMessage taken = claim("taken", 300);
		LeaseKeeper keeper = new LeaseKeeper(TOPIC, this.store, Duration.ofMillis(300), new CrashIsolation());
		keeper.hold(kept.lease(), System.nanoTime(), false);
		keeper.hold(taken.lease(), System.nanoTime(), false);
		assertThat(keeper.take(taken.lease())).isTrue();
		assertThat(keeper.take(taken.lease())).as("a lease is taken once").isFalse();
		keeper.startExtending(this.maintenance, Runnable::run);
		try {
			// the taken lease ends and its message is claimable again; the kept one is not
			ClaimedMessage again = awaitClaim();
			assertThat(again.id()).isEqualTo("taken");
			// five times its lease, the kept message is still not claimable
			await().during(Duration.ofMillis(1500))
				.atMost(Duration.ofSeconds(5))
				.until(() -> this.store.leases().claim(TOPIC, 1, 30_000, 10).messages().isEmpty());
		}
		finally {
			keeper.stopExtending();
		}
	}

	@Test
	void handingBackSkipsWhatWasTakenAndReturnsTheRestUncharged() {
		ClaimedMessage waiting = claim("waiting", 30_000);
		ClaimedMessage finished = claim("finished", 30_000);
		LeaseKeeper keeper = new LeaseKeeper(TOPIC, this.store, Duration.ofSeconds(30), new CrashIsolation());
		keeper.hold(waiting.lease(), System.nanoTime(), false);
		keeper.hold(finished.lease(), System.nanoTime(), false);
		keeper.started(finished.lease());
		// the handler of 'finished' returned first: its outcome decides, the hand-back must not touch it
		assertThat(keeper.take(finished.lease())).isTrue();
		keeper.handBackAll("still running");
		assertThat(keeper.size()).isZero();
		List<ClaimedMessage> claimed = this.store.leases().claim(TOPIC, 10, 30_000, 10).messages();
		assertThat(claimed).singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo("waiting");
			assertThat(message.attempt()).as("a message handed back before its handler started is not charged")
				.isEqualTo(1);
		});
	}

	@Test
	void aHandlerDoesNotStartOnALeaseHandedBackMeanwhile() {
		ClaimedMessage message = claim("late-start", 30_000);
		LeaseKeeper keeper = new LeaseKeeper(TOPIC, this.store, Duration.ofSeconds(30), new CrashIsolation());
		keeper.hold(message.lease(), System.nanoTime(), false);
		// the stop hands the lease back before the handler thread marks its start: it must not start then
		keeper.handBackAll("still running");
		assertThat(keeper.started(message.lease())).isFalse();
		assertThat(this.store.messages().lookup(TOPIC, "late-start")).satisfies((entry) -> {
			assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
			assertThat(entry.attempts()).as("never started, not charged").isZero();
		});
	}

	@Test
	void aHandlerStillRunningWhenTheConsumerStopsIsChargedSoAMessageThatNeverReturnsIsBuriedInTheEnd() {
		// max attempts 2: one run cut off by each of two stops, then the dead letters (not a loop across restarts)
		for (int stop = 1; stop <= 2; stop++) {
			ClaimedMessage hanging = (stop == 1) ? claim("hangs", 30_000)
					: this.store.leases().claim(TOPIC, 1, 30_000, 2).messages().get(0);
			assertThat(hanging.id()).isEqualTo("hangs");
			LeaseKeeper keeper = new LeaseKeeper(TOPIC, this.store, Duration.ofSeconds(30), new CrashIsolation());
			keeper.hold(hanging.lease(), System.nanoTime(), hanging.suspect());
			keeper.started(hanging.lease());
			keeper.handBackAll("still running at shutdown");
			assertThat(keeper.size()).isZero();
			StoredEntry entry = this.store.messages().lookup(TOPIC, "hangs");
			assertThat(entry).isNotNull();
			assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
			assertThat(entry.attempts()).as("each cut-off run counts").isEqualTo(stop);
			assertThat(entry.error()).isEqualTo("still running at shutdown");
			assertThat(entry.suspect()).as("it may yet kill a consumer: it runs alone").isTrue();
		}
		Claim third = this.store.leases().claim(TOPIC, 10, 30_000, 2);
		assertThat(third.messages()).isEmpty();
		assertThat(third.buried()).isEqualTo(1);
		assertThat(this.store.deadLetters().list(TOPIC, 0, 10)).singleElement()
			.satisfies((dead) -> assertThat(dead.id()).isEqualTo("hangs"));
	}

	private ClaimedMessage claim(String id, long leaseMillis) {
		this.store.messages().schedule(TOPIC, List.of(new NewMessage(id, DueTime.in(0), Instant.now(), Map.of(), new byte[] { '1' })));
		List<ClaimedMessage> messages = this.store.leases().claim(TOPIC, 1, leaseMillis, 10).messages();
		assertThat(messages).hasSize(1);
		return messages.get(0);
	}

	private ClaimedMessage awaitClaim() {
		ClaimedMessage[] claimed = new ClaimedMessage[1];
		await().atMost(Duration.ofSeconds(10)).until(() -> {
			List<ClaimedMessage> messages = this.store.leases().claim(TOPIC, 1, 30_000, 10).messages();
			claimed[0] = messages.isEmpty() ? null : messages.get(0);
			return claimed[0] != null;
		});
		return claimed[0];
	}

}
