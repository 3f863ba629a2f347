package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a claim costs Redis, in commands its script runs ({@code INFO commandstats} deltas on the test's own server,
 * see {@link CommandCounts}): a claim that leases a batch, and a claim that leases nothing (the upkeep), whose cost
 * must not grow with the number of consumers. Each figure is printed ({@code claim cost:} lines) as well as checked.
 */
class ClaimCostTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final String TOPIC = "cost";

	private static final long LEASE = 60_000;

	private static final int ROUNDS = 10;

	private RedisFixture fixture;

	private RedisMessageStore store;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aClaimThatLeasesNothingReadsNoClaimRecordsWhateverTheirNumber() {
		// thirty consumers hold leases (their claim records stay until those end), and a message waits for later
		schedule("later", Duration.ofHours(1), null);
		for (int i = 0; i < 30; i++) {
			schedule("m" + i, Duration.ZERO, null);
			assertThat(claim(Claimant.create(), List.of(), 1).messages()).hasSize(1);
		}
		assertThat(redis.get().call("HLEN", key("claims"))).isEqualTo("30");
		Claimant idle = Claimant.create();
		claim(idle, List.of(), 10);
		CommandCounts counts = new CommandCounts(redis.get());

		for (int i = 0; i < ROUNDS; i++) {
			assertThat(claim(idle, List.of(), 10).messages()).isEmpty();
		}

		Map<String, Long> idleClaims = counts.sinceLast();
		report("idle claim, 30 claim records", idleClaims, ROUNDS);
		assertThat(idleClaims.getOrDefault("hgetall", 0L)).as("claim records read").isZero();
	}

	@Test
	void claimRecordsWhoseLeasesEndedAreForgottenByTheNextClaimThatLeasesNothing() {
		for (int i = 0; i < 5; i++) {
			schedule("m" + i, Duration.ZERO, null);
			assertThat(this.store.leases().claim(TOPIC, Claimant.create(), List.of(), 1, 100, 10, false, 0).messages())
				.hasSize(1);
		}
		Claimant lasting = Claimant.create();
		schedule("lasting", Duration.ZERO, null);
		assertThat(claim(lasting, List.of(), 1).messages()).hasSize(1);
		assertThat(redis.get().call("HLEN", key("claims"))).isEqualTo("6");

		await().atMost(Duration.ofSeconds(10)).until(() -> {
			this.store.leases().claim(TOPIC, 0, LEASE, 10);
			return "1".equals(redis.get().call("HLEN", key("claims")));
		});
		assertThat(redis.get().call("HEXISTS", key("claims"), idOf(lasting))).isEqualTo("1");
	}

	private Claim claim(Claimant claimant, List<Lease> acks, int limit) {
		return this.store.leases().claim(TOPIC, claimant, acks, limit, LEASE, 10, false, 0);
	}

	private void schedule(String id, Duration delay, Expiry expiry) {
		assertThat(this.store.messages().schedule(TOPIC, List.of(message(id, delay, expiry)))).containsExactly(true);
	}

	private static NewMessage message(String id, Duration delay, Expiry expiry) {
		return new NewMessage(id, DueTime.in(delay.toNanos() / 1000), Instant.now(), Map.of(),
				"p".getBytes(StandardCharsets.UTF_8), expiry);
	}

	private static void report(String what, Map<String, Long> counts, int claims) {
		long total = CommandCounts.total(counts);
		System.out.printf("claim cost: %s: %.1f commands per claim %s (over %d claims)%n", what,
				(double) total / claims, counts, claims);
	}

	private static String idOf(Claimant claimant) {
		return new String(claimant.id(), StandardCharsets.US_ASCII);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
