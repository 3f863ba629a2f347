package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedis;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests' hand on Redis's record of each consumer's last claim that leased messages (a topic's {@code claims} hash),
 * to make a claim whose reply its claimant never received: a stand-in claimant makes the claim, and the record of it
 * is moved to the claimant's id. Redis then holds what the claim did, as if the claimant had sent it.
 */
final class ClaimRecords {

	private ClaimRecords() {
	}

	/**
	 * Moves the record of one claimant's last claim to another claimant's id, numbered as that one's claim
	 * {@code number}.
	 */
	static void move(TestRedis redis, String topic, Claimant from, Claimant to, long number) {
		String key = RedisFixture.PREFIX + ":{" + topic + "}:claims";
		String record = redis.call("HGET", key, idOf(from));
		assertThat(record).as("the record of the claim").isNotNull();
		redis.call("HSET", key, idOf(to), number + record.substring(record.indexOf(':')));
		redis.call("HDEL", key, idOf(from));
	}

	/**
	 * A claim in a claimant's name whose reply it never receives: a stand-in claimant makes it ({@code claim} is given
	 * the stand-in), and Redis's record of it is moved to the claimant's id, numbered as the claimant's claim
	 * {@code number}. The claimant is told nothing (whether it sent the claim is the test's to say, with
	 * {@link Claimant#next()}).
	 * @return the claim, as the claimant would have received it
	 */
	static Claim lost(TestRedis redis, String topic, Claimant claimant, long number, Function<Claimant, Claim> claim) {
		Claimant standIn = Claimant.create();
		Claim lost = claim.apply(standIn);
		move(redis, topic, standIn, claimant, number);
		return lost;
	}

	static String idOf(Claimant claimant) {
		return new String(claimant.id(), StandardCharsets.US_ASCII);
	}

}
