package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Weighted turns among groups in the claim script, on a real Redis: a group of weight 3 gets three times the share of
 * a group of weight 1 while both have messages due, whether a claim has room for every weight or not, and beside the
 * messages without a group (one more group of weight 1).
 */
class WeightedGroupsTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final String TOPIC = "weighted";

	private static final long LEASE = 60_000;

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
	void aGroupOfWeightThreeGetsThreeTimesTheShareOfAGroupOfWeightOne() {
		this.store.controls().weighGroup(TOPIC, "heavy", 3);
		schedule("heavy", 600);
		schedule("light", 600);

		Map<String, Integer> delivered = drain(8, 400);

		assertThat(ratio(delivered, "heavy", "light")).isBetween(2.7, 3.3);
	}

	@Test
	void theWeightsHoldWhenAClaimHasLessRoomThanTheyAddUpTo() {
		this.store.controls().weighGroup(TOPIC, "heavy", 3);
		schedule("heavy", 600);
		schedule("light", 600);
		schedule("other", 600);

		Map<String, Integer> delivered = drain(2, 500);

		assertThat(ratio(delivered, "heavy", "light")).isBetween(2.7, 3.3);
		assertThat(ratio(delivered, "other", "light")).isBetween(0.9, 1.1);
	}

	@Test
	void theMessagesWithoutAGroupCountAsOneGroupOfWeightOne() {
		this.store.controls().weighGroup(TOPIC, "heavy", 3);
		schedule("heavy", 600);
		schedule(null, 600);

		Map<String, Integer> delivered = drain(8, 400);

		assertThat(ratio(delivered, "heavy", "")).isBetween(2.7, 3.3);
	}

	@Test
	void aWeightIsReadBackAndClearedToTheDefault() {
		assertThat(this.store.controls().weighGroup(TOPIC, "heavy", 5).weight()).isEqualTo(5);
		assertThat(this.store.controls().readGroup(TOPIC, "heavy").weight()).isEqualTo(5);
		assertThat(this.store.controls().weighGroup(TOPIC, "heavy", null).weight()).isNull();
		assertThat(redis.get().call("HEXISTS", key("gcontrol"), "w:heavy")).isEqualTo("0");
	}

	@Test
	void aWeightBelowOneIsRefusedAndChangesNothing() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.store.controls().weighGroup(TOPIC, "a", 0))
			.withMessageContaining("at least 1");
		assertThat(redis.get().call("EXISTS", key("gcontrol"))).isEqualTo("0");
	}

	/** Claims of 'size', acknowledging each claim's messages on the next, until 'total' were leased. */
	private Map<String, Integer> drain(int size, int total) {
		Map<String, Integer> delivered = new HashMap<>();
		List<Lease> acks = new ArrayList<>();
		int leased = 0;
		while (leased < total) {
			Claim claim = this.store.leases().claim(TOPIC, acks, size, LEASE, 10, false);
			assertThat(claim.messages()).as("every claim leases while backlogs remain").isNotEmpty();
			acks = claim.messages().stream().map(ClaimedMessage::lease).toList();
			for (ClaimedMessage message : claim.messages()) {
				String group = message.message().group();
				delivered.merge((group != null) ? group : "", 1, Integer::sum);
			}
			leased += claim.messages().size();
		}
		return delivered;
	}

	private static double ratio(Map<String, Integer> delivered, String a, String b) {
		return (double) delivered.getOrDefault(a, 0) / delivered.getOrDefault(b, 1);
	}

	private void schedule(@Nullable String group, int count) {
		List<NewMessage> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(new NewMessage(((group != null) ? group : "plain") + "-" + i, DueTime.in(0), Instant.now(),
					Map.of(), "p".getBytes(StandardCharsets.UTF_8), null, group));
		}
		for (int i = 0; i < messages.size(); i += RedisMessageStore.CHUNK_SIZE) {
			this.store.messages()
				.schedule(TOPIC, messages.subList(i, Math.min(messages.size(), i + RedisMessageStore.CHUNK_SIZE)));
		}
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
