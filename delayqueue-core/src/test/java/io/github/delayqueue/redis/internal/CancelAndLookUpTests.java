package io.github.delayqueue.redis.internal;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.Expiry;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A cancel forgets everything of its message, and a look-up finds everything of it, each reading and deleting only
 * where the topic can hold something of it: the envelope in the bucket of the hash the client sent (never trusted),
 * the retry count, error and suspect mark only in a topic holding any, the expiry only in a topic that stored one.
 */
class CancelAndLookUpTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "cancels";

	@Test
	void aCancelInATopicWithoutRetriesOrExpiriesRunsFourCommands() {
		// stored format 2 (a page's cancel: PagesTests)
		redis.store().setStoredFormat(2);
		MessageOperations messages = redis.store().messages();
		for (int i = 0; i < 10; i++) {
			messages.schedule(TOPIC, List.of(Scheduling.message("m" + i, Duration.ofHours(1))));
		}
		CommandCounts counts = new CommandCounts(redis.get());
		for (int i = 0; i < 10; i++) {
			assertThat(messages.cancel(TOPIC, "m" + i)).isTrue();
		}
		Map<String, Long> commands = counts.sinceLast();
		// the bucket count's HMGET, the ZREM, the envelope's HDEL and one EXISTS for the marks, counts and errors
		assertThat(commands).containsExactlyInAnyOrderEntriesOf(
				Map.of("hmget", 10L, "zrem", 10L, "hdel", 10L, "exists", 10L));
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).as("every key of the topic").isEmpty();
	}

	@Test
	void aLookUpInATopicWithoutRetriesOrExpiriesRunsFiveCommands() {
		// stored format 2 (a page's look-up: PagesTests)
		redis.store().setStoredFormat(2);
		MessageOperations messages = redis.store().messages();
		messages.schedule(TOPIC, List.of(Scheduling.message("m", Duration.ofHours(1))));
		CommandCounts counts = new CommandCounts(redis.get());
		for (int i = 0; i < 10; i++) {
			assertThat(messages.lookup(TOPIC, "m")).satisfies((entry) -> {
				assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
				assertThat(entry.attempts()).isZero();
				assertThat(entry.error()).isNull();
				assertThat(entry.expiry()).isNull();
				assertThat(entry.suspect()).isFalse();
			});
		}
		// the bucket count's HMGET, EXISTS of format 1's envelopes, the ZSCORE, one EXISTS for the marks, counts and
		// errors, the envelope's HGET
		assertThat(counts.sinceLast()).containsExactlyInAnyOrderEntriesOf(
				Map.of("hmget", 10L, "exists", 20L, "zscore", 10L, "hget", 10L));
	}

	@Test
	void aLookUpFindsARetrysCountErrorMarkAndExpiryWhateverTheHashSent() {
		RedisMessageStore store = redis.store();
		// stored to the millisecond
		Expiry expiry = new Expiry(Instant.ofEpochMilli(System.currentTimeMillis()).plus(Duration.ofHours(2)), false);
		store.messages().schedule(TOPIC, List.of(Scheduling.message("r", Duration.ZERO, expiry)));
		ClaimedMessage claimed = store.leases().claim(TOPIC, 10, 30_000, 5).messages().get(0);
		assertThat(store.leases().retry(TOPIC, claimed.lease(), 3_600_000, "java.lang.IllegalStateException: x"))
			.isTrue();
		redis.get().call("SADD", key("suspect"), "r");
		byte[] id = "r".getBytes(StandardCharsets.UTF_8);
		for (byte[] hash : List.of(new BucketHash().hash(id), new BucketHash().hash("other".getBytes(StandardCharsets.UTF_8)),
				"not hex!".getBytes(StandardCharsets.UTF_8))) {
			List<?> reply = scripts()
				.run(Script.load("lookup"), ReturnType.MULTI, store.keys().pending(TOPIC), id, hash);
			assertThat(reply.get(0)).isEqualTo("pending".getBytes(StandardCharsets.UTF_8));
			assertThat(new String((byte[]) reply.get(2), StandardCharsets.UTF_8)).isEqualTo("1");
			assertThat(new String((byte[]) reply.get(3), StandardCharsets.UTF_8)).contains("IllegalStateException: x");
			assertThat(reply.get(4)).as("the envelope").isInstanceOf(byte[].class);
			assertThat(reply.get(5)).as("the expiry").isInstanceOf(byte[].class);
			assertThat(reply.get(6)).isEqualTo(1L);
		}
		assertThat(store.messages().lookup(TOPIC, "r")).satisfies((entry) -> {
			assertThat(entry.attempts()).isOne();
			assertThat(entry.expiry()).isEqualTo(expiry);
			assertThat(entry.suspect()).isTrue();
		});
	}

	@Test
	void aCancelledRetryForgetsItsCountErrorAndMark() {
		RedisMessageStore store = redis.store();
		store.messages().schedule(TOPIC, List.of(Scheduling.message("r", Duration.ZERO),
				Scheduling.message("other", Duration.ZERO)));
		List<ClaimedMessage> claimed = store.leases().claim(TOPIC, 10, 30_000, 5).messages();
		assertThat(claimed).hasSize(2);
		for (ClaimedMessage message : claimed) {
			assertThat(store.leases().retry(TOPIC, message.lease(), 3_600_000, "java.lang.IllegalStateException: x"))
				.isTrue();
		}
		assertThat(redis.get().call("HEXISTS", key("tries"), "r")).isEqualTo("1");
		redis.get().call("SADD", key("suspect"), "r");

		assertThat(store.messages().cancel(TOPIC, "r")).isTrue();

		assertThat(redis.get().call("HEXISTS", key("tries"), "r")).isEqualTo("0");
		assertThat(redis.get().call("HEXISTS", key("error"), "r")).isEqualTo("0");
		assertThat(redis.get().call("SISMEMBER", key("suspect"), "r")).isEqualTo("0");
		assertThat(store.messages().lookup(TOPIC, "r")).isNull();
		// the other retry keeps its own
		assertThat(redis.get().call("HEXISTS", key("tries"), "other")).isEqualTo("1");
		assertThat(store.messages().lookup(TOPIC, "other")).isNotNull();
	}

	@Test
	void aCancelledMessageWithAnExpiryForgetsIt() {
		RedisMessageStore store = redis.store();
		Expiry expiry = new Expiry(Instant.now().plus(Duration.ofHours(2)), true);
		store.messages().schedule(TOPIC, List.of(Scheduling.message("e", Duration.ofHours(1), expiry)));
		assertThat(redis.get().call("HEXISTS", key("expiry"), "e")).isEqualTo("1");

		assertThat(store.messages().cancel(TOPIC, "e")).isTrue();

		assertThat(redis.get().call("HEXISTS", key("expiry"), "e")).isEqualTo("0");
		assertThat(store.messages().lookup(TOPIC, "e")).isNull();
	}

	@Test
	void aWrongHashFromTheClientStillFindsTheEnvelope() {
		RedisMessageStore store = redis.store();
		for (int i = 0; i < 200; i++) {
			// enough for several buckets, so that a wrong hash names another bucket
			store.messages().schedule(TOPIC, List.of(Scheduling.message("w" + i, Duration.ofHours(1))));
		}
		assertThat(Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"))).isGreaterThan(2);
		byte[] id = "w7".getBytes(StandardCharsets.UTF_8);
		byte[] wrong = new BucketHash().hash("another id".getBytes(StandardCharsets.UTF_8));
		for (byte[] hash : List.of(wrong, "not hex!".getBytes(StandardCharsets.UTF_8))) {
			store.messages().schedule(TOPIC, List.of(Scheduling.message("w7", Duration.ofHours(1))));
			Long cancelled = scripts()
				.run(Script.load("cancel"), ReturnType.INTEGER, store.keys().pending(TOPIC), id, hash);
			assertThat(cancelled).isEqualTo(1L);
			assertThat(store.messages().lookup(TOPIC, "w7")).isNull();
			assertThat(envelopes("w7")).as("envelopes of w7 left in any bucket").isZero();
		}
	}

	// the scripts run as the store runs them, on a connection of its own to the same server
	private static ScriptExecutor scripts() {
		return new ScriptExecutor(redis.fixture().connectionFactory());
	}

	private static long envelopes(String id) {
		long found = 0;
		for (String key : RedisFixture.keysOf(redis.get(), TOPIC)) {
			if (key.contains(":body:") && "1".equals(redis.get().call("HEXISTS", key, id))) {
				found++;
			}
		}
		return found;
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
