package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stored format 5: a plain message's first wait in its topic's pages, small sorted sets by due time (the pages module
 * of the prelude), which every script reads beside the pending set.
 */
class PagesTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final String TOPIC = "paged";

	private static final long LEASE = 30_000;

	@Test
	void aScheduledMessageWaitsInAPageWithItsDueTimeInFrontOfItsEnvelopeAndACancelLeavesNothing() {
		MessageOperations messages = redis.store().messages();
		messages.schedule(TOPIC, List.of(Scheduling.message("m", Duration.ofHours(1))));

		assertThat(redis.get().call("EXISTS", key("pending"))).isEqualTo("0");
		assertThat(redis.get().call("ZCARD", key("pages"))).isEqualTo("1");
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("1");
		String score = RedisFixture.waiting(redis.get(), key("pending")).get("m");
		// format 5: the version byte, then the due time as 8 bytes, as the scripts read it
		assertThat(redis.get().call("EVAL", """
				local e = redis.call('HGET', KEYS[1], 'm')
				return {string.byte(e, 1), tostring(struct.unpack('>d', e, 2) == tonumber(ARGV[1]))}
				""", "1", key("body:0"), score)).isEqualTo("5\ntrue");
		StoredEntry entry = messages.lookup(TOPIC, "m");
		assertThat(entry).isNotNull();
		assertThat(entry.state()).isEqualTo(StoredEntry.State.WAITING);
		assertThat(entry.message().payload()).isNotEmpty();

		assertThat(messages.cancel(TOPIC, "m")).isTrue();
		assertThat(messages.cancel(TOPIC, "m")).isFalse();
		assertThat(messages.lookup(TOPIC, "m")).isNull();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).as("every key of the topic").isEmpty();
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("0");
	}

	@Test
	void aThousandMessagesDueAtOneInstantSplitIntoSmallPagesAndAreClaimedInOrder() {
		long due = System.currentTimeMillis() - 1000;
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			batch.add(Scheduling.message(String.format("s-%04d", (i * 7919) % 1000), Envelope.DEFAULT_PRIORITY, null,
					DueTime.at(due)));
		}
		for (int from = 0; from < 1000; from += 100) {
			assertThat(redis.store().messages().schedule(TOPIC, batch.subList(from, from + 100))).containsOnly(true);
		}
		int pages = Integer.parseInt(redis.get().call("ZCARD", key("pages")));
		assertThat(pages).isBetween(1000 / 96, 1000 / 24);
		for (String member : pages()) {
			assertThat(member).as("every page a small listpack").startsWith("listpack:");
			assertThat(Integer.parseInt(member.substring("listpack:".length()))).isBetween(1, 96);
		}
		assertThat(redis.store().messages().stats(TOPIC).ready()).isEqualTo(1000);

		List<String> claimed = new ArrayList<>();
		Claim claim;
		do {
			claim = redis.store().leases().claim(TOPIC, 128, LEASE, 5);
			claim.messages().forEach((message) -> claimed.add(message.id()));
			redis.store().leases().ack(TOPIC, claim.messages().stream().map(ClaimedMessage::lease).toList());
		}
		while (!claim.messages().isEmpty());
		assertThat(claimed).hasSize(1000).isSorted().doesNotHaveDuplicates();
		assertThat(RedisFixture.keysOf(redis.get(), TOPIC)).isEmpty();
	}

	@Test
	void aBatchOfTimeoutsOfOneLengthTakesItsPagesWithOneWriteEachAndLeavesThemListpacks() {
		// a burst of timeouts of one length: 1,000 due at one instant in one call, into a page that holds some already
		long due = System.currentTimeMillis() + 3_600_000;
		redis.store().messages().schedule(TOPIC, List.of(at("t-0000", due), at("t-9999", due)));
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 1; i <= 1000; i++) {
			batch.add(at(String.format("t-%04d", i), due));
		}
		CommandCounts counts = new CommandCounts(redis.get());
		assertThat(redis.store().messages().schedule(TOPIC, batch)).hasSize(1000).containsOnly(true);
		Map<String, Long> commands = counts.sinceLast();

		// an envelope a message; two look-ups (the two first messages, found in one page) and where that page ends
		// (ZRANGEBYLEX: nowhere, it is the only one), so that the others need none; the page's one ZADD and its count
		// (HINCRBY of pcount, and of meta's paged), then its cut into new pages of 48 (a ZADD each, one ZADD for the
		// index, one HSET of their counts), where a look-up, a ZADD and a ZCARD a message were three commands a message
		assertThat(commands.get("zrevrangebylex")).isEqualTo(2);
		assertThat(commands.get("zrangebylex")).isEqualTo(1);
		assertThat(commands.get("hsetnx")).isEqualTo(1000);
		assertThat(commands.get("zadd")).isLessThan(30);
		assertThat(commands.get("hincrby")).isLessThanOrEqualTo(3);
		assertThat(commands).doesNotContainKey("zcard");
		// (and the buckets growing from one to fifty: an HGETALL and HSETs each, as in stored format 2)
		commands.keySet().removeAll(List.of("hgetall", "hset", "hdel", "hlen"));
		assertThat(CommandCounts.total(commands)).as("%s", commands).isLessThan(1050);
		assertThat(pages()).hasSizeGreaterThan(1002 / 96)
			.allSatisfy((page) -> assertThat(page).matches("listpack:(4[89]|[5-8][0-9]|9[0-6])"));
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("1002");
		assertThat(redis.store().messages().lookup(TOPIC, "t-0500")).isNotNull();
		assertThat(RedisFixture.waiting(redis.get(), key("pending")).keySet()).hasSize(1002)
			.startsWith("t-0000", "t-0001")
			.endsWith("t-1000", "t-9999");
	}

	@Test
	void pagesThatCancelsEmptyJoinTheirNeighboursAndEveryMessageLeftIsStillFound() {
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 960; i++) {
			batch.add(Scheduling.message(String.format("o-%04d", i), Envelope.DEFAULT_PRIORITY, null,
					DueTime.in(3_600_000_000L + i * 1000L)));
		}
		for (int from = 0; from < 960; from += 120) {
			redis.store().messages().schedule(TOPIC, batch.subList(from, from + 120));
		}
		int before = Integer.parseInt(redis.get().call("ZCARD", key("pages")));
		// nine in ten orders are paid: their timeouts are cancelled
		for (int i = 0; i < 960; i++) {
			if (i % 10 != 0) {
				assertThat(redis.store().messages().cancel(TOPIC, String.format("o-%04d", i))).isTrue();
			}
		}
		int after = Integer.parseInt(redis.get().call("ZCARD", key("pages")));
		assertThat(after).as("pages before %d", before).isLessThanOrEqualTo(before / 3);
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("96");
		for (int i = 0; i < 960; i += 10) {
			assertThat(redis.store().messages().lookup(TOPIC, String.format("o-%04d", i))).as("o-%d", i).isNotNull();
		}
		assertThat(redis.store().messages().stats(TOPIC).waiting()).isEqualTo(96);
		assertThat(RedisFixture.waiting(redis.get(), key("pending")).keySet()).hasSize(96);
	}

	@Test
	void theTwoLayoutsAreReadTogetherByDueTime() {
		// format 2 (an instance told to write it, or a message stored before 0.3) and format 5, alternating
		long now = System.currentTimeMillis();
		for (int i = 0; i < 40; i++) {
			redis.store().setStoredFormat((i % 2 == 0) ? 2 : 5);
			Scheduling.schedule(redis.store(), TOPIC, Scheduling.message("m-" + (100 + i), Envelope.DEFAULT_PRIORITY,
					null, DueTime.at(now - 40_000 + i * 1000L)));
		}
		redis.store().setStoredFormat(5);
		assertThat(redis.get().call("ZCARD", key("pending"))).isEqualTo("20");
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("20");

		TopicCounts counts = redis.store().messages().stats(TOPIC);
		assertThat(counts.waiting() + counts.ready()).isEqualTo(40);
		assertThat(counts.ready()).isEqualTo(40);
		assertThat(counts.nextDueAt()).isEqualTo(Instant.ofEpochMilli(now - 40_000));
		DueCounts due = redis.store().messages().countDue(TOPIC,
				List.of(Instant.ofEpochMilli(now - 30_000), Instant.ofEpochMilli(now - 10_000)));
		assertThat(due.before()).isEqualTo(10);
		assertThat(due.windows()).containsExactly(20L);
		assertThat(due.after()).isEqualTo(10);
		List<String> listed = new ArrayList<>();
		Position after = null;
		for (int page = 0; page < 8; page++) {
			List<StoredEntry> entries = redis.store().messages().waiting(TOPIC, null, null, after, 7);
			entries.forEach((entry) -> listed.add(entry.id()));
			if (entries.isEmpty()) {
				break;
			}
			after = entries.get(entries.size() - 1).position();
		}
		assertThat(listed).hasSize(40).isSorted();

		List<String> claimed = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			redis.store().leases().claim(TOPIC, 10, LEASE, 5).messages().forEach((m) -> claimed.add(m.id()));
		}
		assertThat(claimed).hasSize(40).isSorted();
	}

	@Test
	void aPagedMessageThatWaitsAgainWaitsInPendingAndIsStillCancelledAndFound() {
		Scheduling.schedule(redis.store(), TOPIC, Scheduling.message("r", Duration.ZERO));
		ClaimedMessage claimed = redis.store().leases().claim(TOPIC, 10, LEASE, 5).messages().get(0);
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("0");
		assertThat(redis.store().leases().retry(TOPIC, claimed.lease(), 3_600_000, "boom")).isTrue();
		// its envelope keeps the due time of its first wait; it waits in pending now
		assertThat(redis.get().call("ZSCORE", key("pending"), "r")).isNotNull();
		assertThat(redis.store().messages().lookup(TOPIC, "r").attempts()).isOne();
		assertThat(redis.store().messages().reschedule(TOPIC, "r", DueTime.in(7_200_000_000L))).isTrue();
		assertThat(redis.store().messages().cancel(TOPIC, "r")).isTrue();
		assertThat(redis.store().messages().lookup(TOPIC, "r")).isNull();

		// a message rescheduled from its page, or replaced in it, moves to pending
		Scheduling.schedule(redis.store(), TOPIC, Scheduling.message("moved", Duration.ofHours(1)));
		Scheduling.schedule(redis.store(), TOPIC, Scheduling.message("replaced", Duration.ofHours(1)));
		assertThat(redis.store().messages().reschedule(TOPIC, "moved", DueTime.in(0))).isTrue();
		assertThat(redis.store().messages().replace(TOPIC, Scheduling.message("replaced", Duration.ofHours(2))))
			.isEqualTo(Replacement.REPLACED);
		assertThat(redis.get().call("ZCARD", key("pending"))).isEqualTo("2");
		assertThat(redis.get().call("HGET", key("meta"), "paged")).isEqualTo("0");
		assertThat(redis.get().call("EXISTS", key("pages"))).isEqualTo("0");
		assertThat(redis.store().leases().claim(TOPIC, 10, LEASE, 5).messages()).extracting(ClaimedMessage::id)
			.containsExactly("moved");
	}

	@Test
	void aLoneScheduleIntoAPageWakesConsumersOnlyWhenItIsTheTopicsNewHead() {
		List<String> wakes = redis.fixture().recordWakes(TOPIC);
		MessageOperations messages = redis.store().messages();
		messages.schedule(TOPIC, List.of(Scheduling.message("h-1", Duration.ofHours(1))));
		messages.schedule(TOPIC, List.of(Scheduling.message("h-2", Duration.ofHours(2))));
		// a hundred more after it: the first page splits, its head stays
		for (int i = 0; i < 100; i++) {
			messages.schedule(TOPIC, List.of(Scheduling.message("later-" + i, Duration.ofHours(3 + i))));
		}
		messages.schedule(TOPIC, List.of(Scheduling.message("h-0", Duration.ofMinutes(30))));
		// a retry waits in pending, ten minutes from now: a page's message due after it is not the head
		messages.schedule(TOPIC, List.of(Scheduling.message("r", Duration.ZERO)));
		Claim claim = redis.store().leases().claim(TOPIC, 1, LEASE, 5);
		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("r");
		redis.store().leases().retry(TOPIC, claim.messages().get(0).lease(), 600_000, "boom");
		messages.schedule(TOPIC, List.of(Scheduling.message("h-20m", Duration.ofMinutes(20))));
		messages.schedule(TOPIC, List.of(Scheduling.message("h-5m", Duration.ofMinutes(5))));
		// a batch whose last message goes to a later page, its first to the first page as the new head
		messages.schedule(TOPIC, List.of(Scheduling.message("h-1m", Duration.ofMinutes(1)),
				Scheduling.message("later-x", Duration.ofHours(200))));
		assertThat(Integer.parseInt(redis.get().call("ZCARD", key("pages")))).isGreaterThan(1);

		// h-1, h-0, r (due now), the retry (10 min: published by the retry), h-5m and the batch's h-1m
		await().atMost(Duration.ofSeconds(10)).until(() -> wakes.size() >= 6);
		assertThat(wakes).extracting(Long::parseLong).satisfies((delays) -> {
			assertThat(delays).hasSize(6);
			assertThat(delays.get(5)).isBetween(50_000L, 60_000L);
			assertThat(delays.get(0)).isBetween(3_590_000L, 3_600_000L);
			assertThat(delays.get(1)).isBetween(1_790_000L, 1_800_000L);
			assertThat(delays.get(2)).isBetween(0L, 1_000L);
			assertThat(delays.get(4)).isBetween(290_000L, 300_000L);
		});
	}

	@Test
	void aPageThatBecomesTheFirstTakesEveryEarlierMessageAndSplitsInOrder() {
		// (a review's reproduction: the first page emptied, the second kept its fence, and messages due before it went
		// to it all the same; its split then fenced a page below its own, and the overdue ones were lost to claims,
		// look-ups, cancels and counts until a later message fell due)
		long now = redis.fixture().redisTime().toEpochMilli();
		long later = now + 10_000_000;
		List<NewMessage> first = new ArrayList<>();
		for (int i = 0; i < 97; i++) {
			first.add(at(String.format("a%03d", i), later + i));
		}
		redis.store().messages().schedule(TOPIC, first);
		List<NewMessage> far = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			far.add(at(String.format("b%03d", i), later + 10_000_000 + i));
		}
		redis.store().messages().schedule(TOPIC, far);
		for (int i = 0; i < 48; i++) {
			assertThat(redis.store().messages().cancel(TOPIC, String.format("a%03d", i))).isTrue();
		}
		for (int i = 0; i < 30; i++) {
			assertThat(redis.store().messages().cancel(TOPIC, String.format("b%03d", i))).isTrue();
		}
		// 48 overdue messages and one due in 5,000 s, all before what was the second page's fence
		for (int i = 0; i < 48; i++) {
			Scheduling.schedule(redis.store(), TOPIC, at(String.format("x%02d", i), now - 1_000_000 + i));
		}
		Scheduling.schedule(redis.store(), TOPIC, at("x48", now + 5_000_000));
		assertThat(Integer.parseInt(redis.get().call("ZCARD", key("pages")))).isGreaterThan(1);

		assertThat(redis.store().messages().lookup(TOPIC, "x00")).isNotNull();
		assertThat(redis.store().messages().stats(TOPIC).ready()).isEqualTo(48);
		DueCounts due = redis.store().messages().countDue(TOPIC,
				List.of(Instant.ofEpochMilli(now), Instant.ofEpochMilli(now + 6_000_000)));
		assertThat(due.before()).isEqualTo(48);
		assertThat(due.windows()).containsExactly(1L);
		assertThat(due.after()).isEqualTo(49);
		assertThat(redis.store().messages().waiting(TOPIC, Instant.ofEpochMilli(now - 1_000_000),
				Instant.ofEpochMilli(now), null, 100)).hasSize(48);
		assertThat(redis.store().messages().cancel(TOPIC, "x47")).isTrue();
		assertThat(redis.store().leases().claim(TOPIC, 100, LEASE, 5).messages()).extracting(ClaimedMessage::id)
			.hasSize(47)
			.allMatch((id) -> id.startsWith("x"));
	}

	private static NewMessage at(String id, long epochMillis) {
		return Scheduling.message(id, Envelope.DEFAULT_PRIORITY, null, DueTime.at(epochMillis));
	}

	@Test
	void aCancelAndALookUpOfAPagedMessageRunABoundedFewCommands() {
		MessageOperations messages = redis.store().messages();
		for (int i = 0; i < 300; i++) {
			messages.schedule(TOPIC, List.of(Scheduling.message("m" + i, Duration.ofHours(1 + i))));
		}
		CommandCounts counts = new CommandCounts(redis.get());
		for (int i = 0; i < 300; i += 30) {
			assertThat(messages.lookup(TOPIC, "m" + i)).isNotNull();
		}
		// the bucket count's HMGET, EXISTS of format 1's envelopes, pending's ZSCORE, the envelope's HGET, the page's
		// (ZREVRANGEBYLEX) and its ZSCORE, one EXISTS for the marks, counts and errors
		assertThat(counts.sinceLast()).containsExactlyInAnyOrderEntriesOf(Map.of("hmget", 10L, "exists", 20L,
				"zscore", 20L, "hget", 10L, "zrevrangebylex", 10L));
		for (int i = 0; i < 300; i += 30) {
			assertThat(messages.cancel(TOPIC, "m" + i)).isTrue();
		}
		// the bucket count's HMGET, the envelope's HGET, the page's ZREVRANGEBYLEX and ZREM, the page's count and the
		// topic's (HINCRBY each), the envelope's HDEL, one EXISTS for the marks: no page was small enough to join another
		assertThat(counts.sinceLast()).containsExactlyInAnyOrderEntriesOf(Map.of("hmget", 10L, "hget", 10L,
				"zrevrangebylex", 10L, "zrem", 10L, "hincrby", 20L, "hdel", 10L, "exists", 10L));
	}

	/** Each page of the topic, in order, as its encoding and its size ("listpack:48"). */
	private static List<String> pages() {
		return List.of(redis.get().call("EVAL", """
				local out = {}
				for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
				  local k = ARGV[1] .. string.match(m, '%z(%d+)$')
				  out[#out + 1] = redis.call('OBJECT', 'ENCODING', k) .. ':' .. redis.call('ZCARD', k)
				end
				return out
				""", "1", key("pages"), key("p:")).split("\n"));
	}

	private static String key(String suffix) {
		return RedisFixture.PREFIX + ":{" + TOPIC + "}:" + suffix;
	}

}
