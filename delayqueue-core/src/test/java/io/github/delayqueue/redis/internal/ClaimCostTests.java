package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.NewMessage;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static io.github.delayqueue.redis.internal.Scheduling.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a claim costs Redis, in commands its script runs ({@code INFO commandstats} deltas on the test's own server,
 * see {@link CommandCounts}): a claim that leases a batch, and a claim that leases nothing (the upkeep), whose cost
 * must not grow with the number of consumers. Each figure is printed ({@code claim cost:} lines) as well as checked.
 */
class ClaimCostTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	/** The commands counted here are those of the pending set, stored format 2 (a page's: PagesTests). */
	@org.junit.jupiter.api.BeforeEach
	void storedFormat2() {
		redis.store().setStoredFormat(2);
	}

	private static final String TOPIC = "cost";

	private static final int ROUNDS = 10;

	/**
	 * The commands of a claim of ten messages of one group carrying ten acknowledgements: 51 before a claim whose
	 * acknowledgements found no attempt counts and no suspect marks stopped reading them (SCARD, HMGET).
	 */
	private static final long GROUPED_CLAIM_OF_TEN = 49;

	/** The commands of a claim of ten messages without a group carrying ten acknowledgements (41 before, as above). */
	private static final long CLAIM_OF_TEN = 39;

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
		// one HGETALL per claim reads the topic's controls (an empty reply: the topic has none); none the claim records
		assertThat(idleClaims.getOrDefault("hgetall", 0L)).as("claim records read").isEqualTo(ROUNDS);
	}

	@Test
	void claimRecordsWhoseLeasesEndedAreForgottenByTheNextClaimThatLeasesNothing() {
		for (int i = 0; i < 5; i++) {
			schedule("m" + i, Duration.ZERO, null);
			assertThat(redis.store()
				.leases()
				.claim(TOPIC, Claimant.create(), List.of(), 1, 100, 10, false, 0)
				.messages())
				.hasSize(1);
		}
		Claimant lasting = Claimant.create();
		schedule("lasting", Duration.ZERO, null);
		assertThat(claim(lasting, List.of(), 1).messages()).hasSize(1);
		assertThat(redis.get().call("HLEN", key("claims"))).isEqualTo("6");

		await().atMost(Duration.ofSeconds(10)).until(() -> {
			redis.store().leases().claim(TOPIC, 0, LEASE, 10);
			return "1".equals(redis.get().call("HLEN", key("claims")));
		});
		assertThat(redis.get().call("HEXISTS", key("claims"), idOf(lasting))).isEqualTo("1");
	}

	@Test
	void aClaimOfTenMessagesReadsNoExpiryKeyInATopicWithoutExpiries() {
		Map<String, Long> claims = roundsOfClaimsOfTen();

		report("claim of 10 carrying 10 acks", claims, ROUNDS);
		// one EXISTS for format 1's keys, one for the keys the acknowledgements may clean up; none for the expiry hash
		assertThat(claims.getOrDefault("exists", 0L)).as("EXISTS per claim").isEqualTo(2 * ROUNDS);
	}

	@Test
	void aClaimInATopicThatStoredAPriorityCostsTwoCommandsMoreAndATopicWithoutOneNothing() {
		Map<String, Long> plain = claimsOfTen(TOPIC, null);
		String prioritized = TOPIC + "-prio";
		// one message of another priority, due later: the topic's claims read that level's set from now on
		Scheduling.schedule(redis.store(), prioritized, message("later", 9, null, DueTime.in(3_600_000_000L)));
		Map<String, Long> withLevel = claimsOfTen(prioritized, null);

		report("claim of 10 carrying 10 acks, one priority level stored", withLevel, ROUNDS);
		// the level's due messages (ZRANGEBYSCORE) and its earliest (ZRANGE), once per claim; nothing else
		Map<String, Long> extra = new TreeMap<>(withLevel);
		plain.forEach((name, calls) -> extra.merge(name, -calls, Long::sum));
		extra.values().removeIf((calls) -> calls == 0);
		assertThat(extra).containsExactlyInAnyOrderEntriesOf(Map.of("zrangebyscore", (long) ROUNDS, "zrange",
				(long) ROUNDS));
		// and the topic without one runs what it ran before priorities existed
		assertThat(CommandCounts.total(plain)).isEqualTo(CLAIM_OF_TEN * ROUNDS);
	}

	@Test
	void aClaimInAGroupedTopicCostsOneCommandMoreForAGroupThatHoldsALevelAndNothingMoreOtherwise() {
		// each group holds one message due later, of the default priority in one topic, of priority 9 in the other: the
		// claims that serve the group read that level's set too
		String grouped = TOPIC + "-grouped";
		scheduleLater(grouped, 4);
		Map<String, Long> plain = claimsOfTen(grouped, "g");
		String leveled = TOPIC + "-grouped-prio";
		scheduleLater(leveled, 9);
		Map<String, Long> withLevel = claimsOfTen(leveled, "g");

		report("grouped claim of 10 carrying 10 acks", plain, ROUNDS);
		report("grouped claim of 10 carrying 10 acks, the group holding one priority level", withLevel, ROUNDS);
		// the level's set read beside the group's (ZRANGE), once per claim that serves the group; nothing else
		Map<String, Long> extra = new TreeMap<>(withLevel);
		plain.forEach((name, calls) -> extra.merge(name, -calls, Long::sum));
		extra.values().removeIf((calls) -> calls == 0);
		assertThat(extra).containsExactlyInAnyOrderEntriesOf(Map.of("zrange", (long) ROUNDS));
		// and a grouped topic whose groups hold no level runs what it ran before priorities within groups existed
		assertThat(CommandCounts.total(plain)).isEqualTo(GROUPED_CLAIM_OF_TEN * ROUNDS);
	}

	@Test
	void aClaimWhoseAcknowledgementsFoundNoCountsAndNoMarksReadsNeitherAttemptCountsNorSuspects() {
		Map<String, Long> claims = roundsOfClaimsOfTen();

		// the acknowledgements' EXISTS found none of tries, error, suspect and expiry: no SCARD of the suspects, and of
		// HMGETs only the meta fields' and the acknowledged leases', none of the attempt counts
		assertThat(claims.getOrDefault("scard", 0L)).as("SCARD per claim").isZero();
		assertThat(claims.getOrDefault("hmget", 0L)).as("HMGET per claim").isEqualTo(2 * ROUNDS);
	}

	@Test
	void aClaimCarryingAcknowledgementsStillCountsTheAttemptsOfAMessageThatFailedBefore() {
		Claimant claimant = Claimant.create();
		schedule("fails", Duration.ZERO, null);
		Claim first = claim(claimant, List.of(), 10);
		assertThat(first.messages()).singleElement().satisfies((message) -> assertThat(message.attempt()).isOne());
		// its attempt counted, it waits 20 s; another message is due now
		assertThat(redis.store().leases().retry(TOPIC, first.messages().get(0).lease(), 20_000, "boom")).isTrue();
		schedule("other", Duration.ZERO, null);
		Claim second = claim(claimant, List.of(), 10);
		assertThat(second.messages()).extracting(ClaimedMessage::id).containsExactly("other");

		// a claim that carries the other's acknowledgement and looks 25 s ahead: the acknowledgement found the count
		Claim third = redis.store().leases().claim(TOPIC, claimant, List.of(second.messages().get(0).lease()), 10, LEASE,
				10, false, 25_000_000);

		assertThat(third.messages()).singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo("fails");
			assertThat(message.attempt()).isEqualTo(2);
		});
	}

	@Test
	void aClaimStillFindsTheExpiryOfMessagesThatCarryOne() {
		Claimant claimant = Claimant.create();
		Instant deadline = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
		schedule("plain", Duration.ZERO, null);
		schedule("expiring", Duration.ZERO, new Expiry(deadline, true));
		CommandCounts counts = new CommandCounts(redis.get());

		Claim claim = claim(claimant, List.of(), 10);

		report("claim of 2, one with an expiry", counts.sinceLast(), 1);
		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactlyInAnyOrder("plain", "expiring");
		assertThat(claim.messages()).filteredOn((message) -> message.id().equals("expiring"))
			.singleElement()
			.satisfies((message) -> assertThat(message.expiry()).isEqualTo(new Expiry(deadline, true)));
		assertThat(claim.messages()).filteredOn((message) -> message.id().equals("plain"))
			.singleElement()
			.satisfies((message) -> assertThat(message.expiry()).isNull());
	}

	@Test
	void aClaimFindsTheExpiryAReplacementGaveAMessage() {
		schedule("replaced", Duration.ZERO, null);
		Instant passed = Instant.now().minus(Duration.ofMinutes(1)).truncatedTo(ChronoUnit.MILLIS);
		// the topic's first expiry comes with a replacement, not a schedule
		assertThat(redis.store()
			.messages()
			.replace(TOPIC, message("replaced", Duration.ZERO, new Expiry(passed, false))))
			.isEqualTo(Replacement.REPLACED);

		Claim claim = claim(Claimant.create(), List.of(), 10);

		assertThat(claim.messages()).isEmpty();
		assertThat(claim.expired()).isEqualTo(1);
		assertThat(redis.get().call("ZSCORE", key("buried"), "replaced")).as("dead-lettered, as it says").isNotNull();
	}

	/**
	 * The commands of {@link #ROUNDS} claims of ten messages of a group (or none) carrying ten acknowledgements, after
	 * one not counted.
	 */
	private Map<String, Long> claimsOfTen(String topic, @Nullable String group) {
		Claimant claimant = Claimant.create();
		List<Lease> acks = new ArrayList<>();
		CommandCounts counts = new CommandCounts(redis.get());
		Map<String, Long> claims = new TreeMap<>();
		for (int round = 0; round <= ROUNDS; round++) {
			List<NewMessage> messages = Scheduling.many(topic + round, 10, group, Duration.ZERO);
			assertThat(redis.store().messages().schedule(topic, messages)).containsOnly(true);
			counts.sinceLast();
			Claim claim = redis.store().leases().claim(topic, claimant, List.copyOf(acks), 10, LEASE, 10, false, 0);
			Map<String, Long> ran = counts.sinceLast();
			assertThat(claim.messages()).hasSize(10);
			if (round > 0) {
				ran.forEach((name, calls) -> claims.merge(name, calls, Long::sum));
			}
			acks.clear();
			claim.messages().forEach((message) -> acks.add(message.lease()));
		}
		return claims;
	}

	private void scheduleLater(String topic, int priority) {
		Scheduling.schedule(redis.store(), topic, message("later", priority, "g", DueTime.in(3_600_000_000L)));
	}

	/**
	 * Schedules ten messages due now and claims them, carrying the acknowledgements of the round before; returns the
	 * commands the claim ran.
	 */
	/**
	 * A claim of ten that carries nothing, then {@link #ROUNDS} claims of ten each carrying the previous claim's ten
	 * acknowledgements: the commands those rounds ran, by name, summed.
	 */
	private Map<String, Long> roundsOfClaimsOfTen() {
		Claimant claimant = Claimant.create();
		List<Lease> acks = new ArrayList<>();
		CommandCounts counts = new CommandCounts(redis.get());
		claimTen(claimant, acks, 0, counts);
		Map<String, Long> claims = new TreeMap<>();
		for (int round = 1; round <= ROUNDS; round++) {
			claimTen(claimant, acks, round, counts).forEach((name, calls) -> claims.merge(name, calls, Long::sum));
		}
		return claims;
	}

	private Map<String, Long> claimTen(Claimant claimant, List<Lease> acks, int round, CommandCounts counts) {
		scheduleTen("r" + round);
		counts.sinceLast();
		Claim claim = claim(claimant, List.copyOf(acks), 10);
		Map<String, Long> ran = counts.sinceLast();
		assertThat(claim.messages()).hasSize(10);
		acks.clear();
		claim.messages().forEach((message) -> acks.add(message.lease()));
		return ran;
	}

	private void scheduleTen(String prefix) {
		assertThat(redis.store().messages().schedule(TOPIC, Scheduling.many(prefix, 10, null, Duration.ZERO)))
			.containsOnly(true);
	}

	private Claim claim(Claimant claimant, List<Lease> acks, int limit) {
		return redis.store().leases().claim(TOPIC, claimant, acks, limit, LEASE, 10, false, 0);
	}

	private void schedule(String id, Duration delay, @Nullable Expiry expiry) {
		Scheduling.schedule(redis.store(), TOPIC, message(id, delay, expiry));
	}

	private static void report(String what, Map<String, Long> counts, int claims) {
		long total = CommandCounts.total(counts);
		System.out.printf("claim cost: %s: %.1f commands per claim %s (over %d claims)%n", what,
				(double) total / claims, counts, claims);
	}

	private static String idOf(Claimant claimant) {
		return ClaimRecords.idOf(claimant);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
