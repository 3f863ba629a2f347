package io.github.delayqueue.redis.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.github.delayqueue.MessageIds;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The bucket hash a schedule of plain messages sends with each id is the one the scripts compute: else the message
 * would sit in a bucket where claims, cancels and duplicate checks do not look for it.
 */
class BucketHashTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "t";

	@Test
	void javaAndLuaHashEveryKindOfIdAlike() {
		SplittableRandom random = new SplittableRandom(7);
		List<String> ids = new ArrayList<>(List.of("a", "order-42", "ü", "注文-42", "\uD83D\uDE00", "x".repeat(200)));
		for (int i = 0; i < 300; i++) {
			ids.add(MessageIds.generate());
			ids.add(randomId(random));
		}
		for (String id : ids) {
			String lua = redis.get().call("EVAL", "return string.sub(redis.sha1hex(ARGV[1]), 1, 8)", "0", id);
			assertThat(new String(new BucketHash().hash(id.getBytes(StandardCharsets.UTF_8)), StandardCharsets.US_ASCII))
				.as("hash of %s", id)
				.isEqualTo(lua);
		}
	}

	@Test
	void loneSchedulesOfNonAsciiIdsAreFoundByTheScriptsThatHashInRedis() {
		SplittableRandom random = new SplittableRandom(11);
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			ids.add(randomId(random) + "-" + i);
		}
		for (String id : ids) {
			assertThat(redis.store().messages().schedule(TOPIC, List.of(message(id)))).containsExactly(true);
		}
		// splits happened on the way (the lone script moves entries by the hash bodyOf would compute)
		assertThat(Integer.parseInt(redis.get().call("HGET", key("meta"), "buckets"))).isGreaterThan(4);
		List<NewMessage> again = new ArrayList<>();
		for (String id : ids) {
			assertThat(redis.store().messages().lookup(TOPIC, id)).as("lookup of %s", id).isNotNull();
			again.add(message(id));
		}
		assertThat(redis.store().messages().schedule(TOPIC, again)).hasSize(300).containsOnly(false);
		assertThat(redis.store().messages().cancel(TOPIC, ids.get(17))).isTrue();
		assertThat(redis.store().messages().lookup(TOPIC, ids.get(17))).isNull();
	}

	@Test
	void aLoneScheduleWithoutAValidHashChangesNothing() {
		for (String hash : new String[] { "", "1234567", "123456789", "xyzxyzxy" }) {
			assertThatIllegalStateException()
				.isThrownBy(() -> redis.get().call("EVAL", script(), "1", key("pending"), "m", "d", "0", "e", "", hash))
				.withMessageContaining("bucket hash must be eight hex digits");
		}
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	@Test
	void aBatchWithOneInvalidHashChangesNothing() {
		// every hash is checked before the first write: the valid message before the bad one is not stored either
		String valid = new String(new BucketHash().hash("a".getBytes(StandardCharsets.UTF_8)), StandardCharsets.US_ASCII);
		assertThatIllegalStateException()
			.isThrownBy(() -> redis.get()
				.call("EVAL", script(), "1", key("pending"), "a", "d", "0", "e", "", valid, "b", "d", "0", "e", "",
						"12345"))
			.withMessageContaining("bucket hash must be eight hex digits, got '12345'");
		assertThatIllegalStateException()
			.isThrownBy(() -> redis.get().call("EVAL", script(), "1", key("pending"), "a", "d", "0", "e", "", valid, "b"))
			.withMessageContaining("six arguments per message, got 7");
		for (String[] due : new String[][] { { "a", "abc" }, { "a", "" }, { "x", "5" }, { "d", "later" } }) {
			assertThatIllegalStateException()
				.isThrownBy(() -> redis.get()
					.call("EVAL", script(), "1", key("pending"), "a", "d", "0", "e", "", valid, "b", due[0], due[1], "e",
							"", valid))
				.withMessageContaining("a due time is 'd', 'a', 'D' or 'A' and a number, got '" + due[0] + "' '" + due[1] + "'");
		}
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	private static String script() {
		try (var in = BucketHashTests.class.getResourceAsStream("/io/github/delayqueue/redis/schedule-plain.lua")) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** 1 to 12 code points from ASCII, Latin, CJK and beyond the BMP; no white space or control characters. */
	private static String randomId(SplittableRandom random) {
		StringBuilder id = new StringBuilder();
		int length = 1 + random.nextInt(12);
		while (id.codePointCount(0, id.length()) < length) {
			int codePoint = switch (random.nextInt(4)) {
				case 0 -> 0x21 + random.nextInt(0x7f - 0x21);
				case 1 -> 0xc0 + random.nextInt(0x100 - 0xc0);
				case 2 -> 0x4e00 + random.nextInt(0x9fff - 0x4e00);
				default -> 0x1f300 + random.nextInt(0x1f5ff - 0x1f300);
			};
			id.appendCodePoint(codePoint);
		}
		return MessageIds.validate(id.toString());
	}

	private static NewMessage message(String id) {
		return new NewMessage(id, DueTime.in(3_600_000_000L), Instant.now(), Map.of(),
				"p".getBytes(StandardCharsets.UTF_8));
	}

	private static String key(String name) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + name;
	}

}
