package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.github.delayqueue.redis.internal.Claims.LEASE;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A topic as 0.2 stored it (stored format 2, before the claims records, the controls, the expiry hash and the fields
 * a claim now reads of meta besides the bucket count and the token): this version claims from it as 0.2 did.
 */
class TopicFrom02Tests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "from02";

	/** A format-2 envelope: version 2, created at the epoch (varint 0), no header (varint 0), the payload "p". */
	private static final String ENVELOPE = "\u0002\u0000\u0000p";

	@Test
	void aClaimLeasesFromATopicAs02StoredIt() {
		long now = Long.parseLong(redis.get().call("TIME").split("\n")[0]) * 1000;
		// one bucket (no bucket count), the last token 0.2 handed out, a message that failed once, one waiting for
		// later, and one whose 0.2 lease ran out
		redis.get().call("HSET", key("body:0"), "due", ENVELOPE, "later", ENVELOPE, "ran-out", ENVELOPE);
		redis.get().call("ZADD", key("pending"), Long.toString(now - 1000), "due", Long.toString(now + 3_600_000),
				"later");
		redis.get().call("HSET", key("tries"), "due", "1");
		redis.get().call("ZADD", key("leased"), Long.toString(now - 10), "ran-out");
		redis.get().call("HSET", key("lease"), "ran-out", "41:" + (now - 5000) + ":0");
		redis.get().call("HSET", key("meta"), "token", "41");

		Claim claim = claim(Claimant.create(), false);

		assertThat(claim.messages()).singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo("due");
			assertThat(message.attempt()).as("its failure counted").isEqualTo(2);
			assertThat(message.lease().token()).as("after 0.2's tokens").isEqualTo(42);
			assertThat(message.expiry()).isNull();
			assertThat(message.message().payload()).isEqualTo("p".getBytes(StandardCharsets.UTF_8));
			assertThat(message.message().createdAt()).isEqualTo(Instant.EPOCH);
			assertThat(message.dueAt()).isEqualTo(Instant.ofEpochMilli(now - 1000));
		});
		assertThat(redis.get().call("SISMEMBER", key("suspect"), "ran-out")).as("its lease ran out").isEqualTo("1");

		Claim suspect = claim(Claimant.create(), true);

		assertThat(suspect.messages()).singleElement().satisfies((message) -> {
			assertThat(message.id()).isEqualTo("ran-out");
			assertThat(message.suspect()).isTrue();
			assertThat(message.attempt()).isEqualTo(1);
			assertThat(message.expiry()).isNull();
		});
		assertThat(redis.store().leases().ack(TOPIC, List.of(claim.messages().get(0).lease(), suspect.messages().get(0)
			.lease()))).isEqualTo(2);
		assertThat(redis.get().call("ZRANGE", key("pending"), "0", "-1")).isEqualTo("later");
	}

	private Claim claim(Claimant claimant, boolean mayLeaseSuspect) {
		return redis.store().leases().claim(TOPIC, claimant, List.of(), 10, LEASE, 10, mayLeaseSuspect, 0);
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
