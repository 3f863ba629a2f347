package io.github.delayqueue.redis.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.StoreExtension;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Counting waiting messages by due time ({@code countDue}) against a real Redis: exact with 100,000 waiting across
 * partitions for every range the dashboard offers, a message due exactly on an edge counted once, no message read
 * (only {@code ZCOUNT}s run), and bad windows refused.
 */
class DueCountTests {

	@RegisterExtension
	static final StoreExtension redis = StoreExtension.create();

	private static final int MESSAGES = 100_000;

	/** One message every 864 ms: 100,000 in exactly a day. */
	private static final long SPACING_MILLIS = 864;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.queue = redis.fixture().queue(redis.store());
		this.admin = redis.fixture().admin(redis.store());
	}

	@Test
	void countsEveryWindowExactlyWithAHundredThousandWaitingAcrossPartitions() {
		TopicPartitioning partitioning = new TopicPartitioning(Map.of("big", 4));
		this.queue.setPartitioning(partitioning);
		this.admin.setPartitioning(partitioning);
		Instant base = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
		List<ScheduleRequest> requests = new ArrayList<>(MESSAGES);
		for (int i = 0; i < MESSAGES; i++) {
			requests.add(ScheduleRequest.builder("big", i).id("m-" + i).dueAt(base.plusMillis(SPACING_MILLIS * i)).build());
		}
		// in slices, so that no call waits behind a hundred others on a busy machine
		for (int from = 0; from < MESSAGES; from += 1000) {
			this.queue.scheduleAll(requests.subList(from, from + 1000));
		}
		TopicStats stats = this.admin.stats("big");
		assertThat(stats.waiting() + stats.ready()).isEqualTo(MESSAGES);

		// the dashboard's ranges: an hour by minutes, a day by hours, a week by days; and one window the whole day
		assertExact(base, base, Duration.ofHours(1), 60);
		assertExact(base, base, Duration.ofDays(1), 24);
		assertExact(base, base, Duration.ofDays(7), 7);
		assertExact(base, base, Duration.ofDays(1), 1);
		// windows that start between messages, and 1000 of them (the most one call counts)
		assertExact(base, base.minusMillis(500), Duration.ofHours(2).plusMillis(333), 1000);
		// starting in the middle: what comes before is counted as such
		DueHistogram middle = this.admin.countDue("big", base.plus(Duration.ofHours(12)),
				base.plus(Duration.ofHours(13)), 4);
		assertThat(middle.before()).isEqualTo(expected(base, base.plus(Duration.ofHours(12))));
		assertThat(middle.before() + middle.total() + middle.after()).isEqualTo(MESSAGES);

		// and the same counts when a count of the pages (stored format 5) goes on over many calls of 7 pages each
		redis.store().messages().setPagesPerCount(7);
		try {
			assertExact(base, base, Duration.ofDays(1), 24);
			assertExact(base, base.minusMillis(500), Duration.ofHours(2).plusMillis(333), 1000);
		}
		finally {
			redis.store().messages().setPagesPerCount(1000);
		}
	}

	@Test
	void aCountOfManyPagesWalksABoundedNumberOfThemACall() {
		Instant base = scheduleTwoThousandASecondApart();
		long pages = Long.parseLong(redis.get().call("ZCARD", RedisFixture.PREFIX + ":{cheap}:pages"));
		redis.store().messages().setPagesPerCount(5);
		try {
			long before = scriptCalls();
			DueHistogram histogram = this.admin.countDue("cheap", base, base.plusSeconds(3000), 30);
			long calls = scriptCalls() - before;

			assertThat(histogram.total()).isEqualTo(2000);
			assertThat(histogram.before() + histogram.after()).isZero();
			// (and the partition count's call)
			assertThat(calls).as("script calls for %d pages", pages).isBetween((pages + 4) / 5, (pages + 4) / 5 + 2);
		}
		finally {
			redis.store().messages().setPagesPerCount(1000);
		}
	}

	@Test
	void aCountOverSeveralCallsCountsEachMessageOnceWhilePagesSplitAndJoinBetweenThem() {
		MessageOperations messages = redis.store().messages();
		Instant base = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
		List<NewMessage> waiting = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			waiting.add(Scheduling.message(String.format("w-%03d", i), Envelope.DEFAULT_PRIORITY, null,
					DueTime.at(base.plusSeconds(i).toEpochMilli())));
		}
		for (int from = 0; from < 500; from += 100) {
			messages.schedule("steps", waiting.subList(from, from + 100));
		}
		List<Instant> edges = List.of(base.plusSeconds(100), base.plusSeconds(300), base.plusSeconds(450));

		// a batch cuts the page the count stopped at into new pages (one under its fence, with a new number)
		DueCount cut = messages.dueCount("steps", edges);
		cut.step(2);
		List<NewMessage> batch = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			batch.add(Scheduling.message(String.format("w-%03d-%02d", 100 + i / 10, i), Envelope.DEFAULT_PRIORITY, null,
					DueTime.at(base.plusSeconds(100 + i / 10).toEpochMilli())));
		}
		assertThat(messages.schedule("steps", batch)).containsOnly(true);
		while (!cut.done()) {
			cut.step(2);
		}
		assertThat(cut.result()).isEqualTo(messages.countDue("steps", edges));
		assertThat(cut.result().windows()).containsExactly(300L, 150L);

		// cancels leave the page the count stopped at small enough to join the page before it
		DueCount joined = messages.dueCount("steps", edges);
		joined.step(2);
		for (int i = 96; i < 130; i++) {
			assertThat(messages.cancel("steps", String.format("w-%03d", i))).isTrue();
		}
		while (!joined.done()) {
			joined.step(2);
		}
		assertThat(joined.result()).isEqualTo(messages.countDue("steps", edges));
		assertThat(joined.result().windows()).containsExactly(270L, 150L);
		assertThat(joined.result().before()).isEqualTo(96);
	}

	/** The script calls the test's server ran (by Functions or by SHA). */
	private static long scriptCalls() {
		long calls = 0;
		for (String line : redis.get().call("INFO", "commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_fcall:") || line.startsWith("cmdstat_evalsha:")
					|| line.startsWith("cmdstat_eval:")) {
				String field = line.substring(line.indexOf("calls=") + "calls=".length());
				calls += Long.parseLong(field.substring(0, field.indexOf(',')));
			}
		}
		return calls;
	}

	/** Counts {@code windows} windows over {@code span} from {@code from}, each against what the due times from {@code base} give. */
	private void assertExact(Instant base, Instant from, Duration span, int windows) {
		DueHistogram histogram = this.admin.countDue("big", from, from.plus(span), windows);
		assertThat(histogram.windows()).hasSize(windows);
		for (DueHistogram.Window window : histogram.windows()) {
			assertThat(window.count()).as("window from %s", window.from())
				.isEqualTo(expected(base, window.to()) - expected(base, window.from()));
		}
		assertThat(histogram.before()).isEqualTo(expected(base, from));
		assertThat(histogram.before() + histogram.total() + histogram.after()).isEqualTo(MESSAGES);
		assertThat(histogram.from()).isEqualTo(from);
		assertThat(histogram.to()).isEqualTo(from.plus(span));
	}

	/** How many of the messages (due every 864 ms from {@code base}) are due before {@code at}. */
	private long expected(Instant base, Instant at) {
		long micros = ChronoUnit.MICROS.between(base, at);
		if (micros <= 0) {
			return 0;
		}
		// message i is due at 864,000 i µs: those with 864,000 i < micros
		long before = Math.floorDiv(micros - 1, SPACING_MILLIS * 1000) + 1;
		return Math.min(MESSAGES, before);
	}

	@Test
	void aMessageDueExactlyOnAnEdgeIsCountedOnceInTheWindowItStarts() {
		Instant edge = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.SECONDS);
		for (int i = 0; i < 3; i++) {
			this.queue.schedule(ScheduleRequest.builder("edges", i).id("on-" + i).dueAt(edge.plusSeconds(i)).build());
		}
		// a millisecond before the second edge, and a millisecond after it
		this.queue.schedule(ScheduleRequest.builder("edges", 9).id("just-before").dueAt(edge.plusMillis(999)).build());
		this.queue.schedule(ScheduleRequest.builder("edges", 9).id("just-after").dueAt(edge.plusMillis(1001)).build());

		DueHistogram seconds = this.admin.countDue("edges", edge, edge.plusSeconds(3), 3);
		assertThat(seconds.windows()).extracting(DueHistogram.Window::count).containsExactly(2L, 2L, 1L);
		assertThat(seconds.before()).isZero();
		assertThat(seconds.after()).isZero();
		// the last edge is exclusive: the message due on it is counted after, not in the last window
		DueHistogram upToTheThird = this.admin.countDue("edges", edge, edge.plusSeconds(2), 2);
		assertThat(upToTheThird.windows()).extracting(DueHistogram.Window::count).containsExactly(2L, 2L);
		assertThat(upToTheThird.after()).isEqualTo(1);
		// the first edge is inclusive: nothing due before it
		DueHistogram fromJustAfter = this.admin.countDue("edges", edge.plusNanos(1000), edge.plusSeconds(3), 3);
		assertThat(fromJustAfter.before()).isEqualTo(1);
		// a window of one microsecond holds what is due in that microsecond
		DueHistogram oneMicro = this.admin.countDue("edges", edge.plusSeconds(1),
				edge.plusSeconds(1).plus(1, ChronoUnit.MICROS), 1);
		assertThat(oneMicro.total()).isEqualTo(1);
	}

	@Test
	void countingReadsNoMessageAndRunsOneZcountPerWindowAndPage() {
		Instant base = scheduleTwoThousandASecondApart();
		CommandCounts counts = new CommandCounts(redis.get());

		DueHistogram histogram = this.admin.countDue("cheap", base, base.plusSeconds(3000), 30);

		assertThat(histogram.total()).isEqualTo(2000);
		Map<String, Long> ran = counts.sinceLast();
		// one per window, one before and one after (and the partition count, read once); and in the pages (stored
		// format 5), walking the index, a page within one window by its count (one HMGET for a hundred pages), one
		// across an edge by a ZCOUNT for each side
		long pages = Long.parseLong(redis.get().call("ZCARD", RedisFixture.PREFIX + ":{cheap}:pages"));
		assertThat(pages).isBetween(2000L / 96, 2000L / 24);
		assertThat(ran.get("zcount")).isBetween(32L, 32L + 2 * 31);
		assertThat(ran.get("hmget")).isEqualTo(1);
		assertThat(ran.keySet()).containsOnly("zcount", "exists", "hget", "hmget", "zrangebylex");

		// one window over them all: the pages' counts, and ZCOUNTs for the first page only (unfenced: it starts before
		// the window, as far as the index says) and the last (where it ends is not known), where a ZCOUNT a page ran
		// before
		histogram = this.admin.countDue("cheap", base, base.plusSeconds(3000), 1);
		assertThat(histogram.total()).isEqualTo(2000);
		ran = counts.sinceLast();
		assertThat(ran.get("zcount")).as("ZCOUNTs for %d pages", pages).isLessThanOrEqualTo(3L + 3);
	}

	@Test
	void countingAPendingSetRunsOneZcountPerWindow() {
		redis.store().setStoredFormat(2);
		Instant base = scheduleTwoThousandASecondApart();
		CommandCounts counts = new CommandCounts(redis.get());

		DueHistogram histogram = this.admin.countDue("cheap", base, base.plusSeconds(3000), 30);

		assertThat(histogram.total()).isEqualTo(2000);
		Map<String, Long> ran = counts.sinceLast();
		assertThat(ran).containsEntry("zcount", 32L);
		assertThat(ran.keySet()).containsOnly("zcount", "exists", "hget");
	}

	/** 2,000 messages in the topic 'cheap', one a second from an hour from now; returns the first's due time. */
	private Instant scheduleTwoThousandASecondApart() {
		Instant base = Instant.now().plus(Duration.ofHours(1));
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			requests.add(ScheduleRequest.builder("cheap", i).dueAt(base.plusSeconds(i)).build());
		}
		this.queue.scheduleAll(requests);
		return base;
	}

	@Test
	void messagesWaitingForARetryAreCountedAndLeasedOnesAreNot() {
		Instant now = redis.fixture().redisTime();
		this.queue.schedule(ScheduleRequest.builder("states", 1).id("leased").build());
		this.queue.schedule(ScheduleRequest.builder("states", 2).id("retrying").build());
		Claim claim = redis.store().leases().claim("states", 2, 60_000, 5);
		assertThat(claim.messages()).hasSize(2);
		ClaimedMessage retrying = claim.messages().stream().filter((m) -> m.id().equals("retrying")).findFirst().get();
		redis.store().leases().retry("states", retrying.lease(), 60_000, "boom");

		DueHistogram histogram = this.admin.countDue("states", now.plusSeconds(30), now.plusSeconds(90), 1);
		assertThat(histogram.total()).isEqualTo(1);
		assertThat(histogram.before() + histogram.after()).isZero();
	}

	@Test
	void badWindowsAreRefused() {
		Instant from = Instant.now();
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.countDue("t", from, from.plusSeconds(1), 0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.countDue("t", from, from.plusSeconds(1), DueHistogram.MAX_WINDOWS + 1));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.countDue("t", from, from, 1));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.countDue("t", from, from.minusSeconds(1), 1));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.countDue("t", from, from.plus(5, ChronoUnit.MICROS), 6));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.countDue("bad topic", from,
				from.plusSeconds(1), 1));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> redis.store().messages().countDue("t", List.of(from, from)));
	}

}
