package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.build.JsonTree;
import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.dashboard.DueTimeline;
import io.github.delayqueue.dashboard.DueTimeline.Timeline;
import io.github.delayqueue.dashboard.TopicBrowser;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A topic of 100 000 waiting messages: every view of the dashboard reads a bounded part of it, and the timeline
 * counts it exactly without reading a message.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@SpringBootTest(classes = PlainApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "delayqueue.dashboard.sample-interval=200ms")
class LargeTopicTests {

	static final TestRedis redis = TestRedis.builder().build();

	private static final int MESSAGES = 100_000;

	private static final String TOPIC = "large";

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		PlainApplication.redis(registry, redis);
	}

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	/** When the first message is due; the others follow, one every 36 ms, over an hour. */
	private Instant base;

	@BeforeAll
	void fill() {
		this.base = Instant.now().plus(Duration.ofMinutes(1)).truncatedTo(ChronoUnit.SECONDS);
		List<ScheduleRequest> requests = new ArrayList<>(MESSAGES);
		for (int i = 0; i < MESSAGES; i++) {
			requests.add(ScheduleRequest.builder(TOPIC, i).id("m-" + i).dueAt(this.base.plusMillis(36L * i)).build());
		}
		// in slices, so that no call waits behind a hundred others on a busy machine
		for (int from = 0; from < MESSAGES; from += 5000) {
			this.queue.scheduleAll(requests.subList(from, from + 5000));
		}
		assertThat(this.admin.stats(TOPIC).waiting()).isEqualTo(MESSAGES);
	}

	@Test
	void theOverviewCountsThemFromTheSampler() {
		Http http = new Http(this.port);
		JsonTree topic = DashboardReadOnlyTests.awaitTopic(http, TOPIC, (t) -> t.get("waiting").asLong() == MESSAGES);
		assertThat(topic.get("nextDueAt").isNull()).isFalse();
		assertThat(http.get("/delayqueue").body()).contains("<td class=\"num waiting\">100000</td>");
	}

	@Test
	void theTimelineCountsEveryBarExactlyAndReadsNoMessage() {
		CountingAdmin counting = new CountingAdmin(this.admin);
		DueTimeline timeline = new DueTimeline(counting, 30);
		Timeline counted = timeline.count(TOPIC, this.base, Duration.ofHours(2));
		assertThat(counting.listed.get()).isZero();
		// bars of 4 minutes: the first 15 hold the hour's 100,000 messages (6,666 or 6,667 each, a message due on an
		// edge in the bar it starts), the others none
		assertThat(counted.buckets()).hasSize(30);
		for (int bar = 0; bar < 30; bar++) {
			long expected = dueBefore(240_000L * (bar + 1)) - dueBefore(240_000L * bar);
			assertThat(counted.buckets().get(bar).count()).as("bar %d", bar).isEqualTo(expected);
		}
		assertThat(counted.buckets().subList(0, 15).stream().mapToLong(Timeline.Bucket::count).sum())
			.isEqualTo(MESSAGES);
		assertThat(counted.overdue()).isZero();
		assertThat(counted.later()).isZero();

		JsonTree served = new Http(this.port).get("/delayqueue/api/topics/large/timeline?seconds=86400").json();
		long total = 0;
		for (JsonTree bucket : served.get("buckets")) {
			total += bucket.get("count").asLong();
		}
		assertThat(total + served.get("overdue").asLong()).isEqualTo(MESSAGES);
	}

	/** How many of the messages are due before {@code millis} after the first one's due time. */
	private static long dueBefore(long millis) {
		return Math.min(MESSAGES, (millis + 35) / 36);
	}

	@Test
	void listingReadsOnePage() {
		CountingAdmin counting = new CountingAdmin(this.admin);
		TopicBrowser browser = new TopicBrowser(counting);
		TopicBrowser.WaitingPage first = browser.waiting(TOPIC, 20, null);
		assertThat(first.messages()).extracting("id").startsWith("m-0", "m-1");
		TopicBrowser.WaitingPage second = browser.waiting(TOPIC, 20, first.nextCursor());
		assertThat(second.messages().get(0).id()).isEqualTo("m-20");
		assertThat(counting.listed.get()).isEqualTo(40);

		JsonTree page = new Http(this.port).get("/delayqueue/api/topics/large/waiting?limit=100").json();
		assertThat(page.get("messages").size()).isEqualTo(100);
		assertThat(page.get("nextCursor").isNull()).isFalse();
		assertThat(new Http(this.port).get("/delayqueue/api/topics/large/message?id=m-99999").json().get("state")
			.asString()).isEqualTo("WAITING");
	}

	/** The admin, counting the messages it lists. */
	static final class CountingAdmin implements DelayedQueueAdmin {

		final AtomicLong listed = new AtomicLong();

		private final DelayedQueueAdmin delegate;

		CountingAdmin(DelayedQueueAdmin delegate) {
			this.delegate = delegate;
		}

		@Override
		public MessagePage listWaiting(String topic, WaitingQuery query) {
			MessagePage page = this.delegate.listWaiting(topic, query);
			this.listed.addAndGet(page.messages().size());
			return page;
		}

		@Override
		public DueHistogram countDue(String topic, Instant from, Instant to, int windows) {
			return this.delegate.countDue(topic, from, to, windows);
		}

		@Override
		public Optional<MessageInfo> lookup(String topic, String id) {
			return this.delegate.lookup(topic, id);
		}

		@Override
		public Set<String> knownTopics() {
			return this.delegate.knownTopics();
		}

		@Override
		public int partitions(String topic) {
			return this.delegate.partitions(topic);
		}

		@Override
		public void changePartitions(String topic, int partitions) {
			this.delegate.changePartitions(topic, partitions);
		}

		@Override
		public SortedMap<String, Instant> subscriptions(String topic) {
			return this.delegate.subscriptions(topic);
		}

		@Override
		public boolean declareSubscription(String topic, String subscription) {
			return this.delegate.declareSubscription(topic, subscription);
		}

		@Override
		public boolean removeSubscription(String topic, String subscription) {
			return this.delegate.removeSubscription(topic, subscription);
		}

		@Override
		public TopicControlState controls(String topic) {
			return this.delegate.controls(topic);
		}

		@Override
		public TopicStats stats(String topic) {
			return this.delegate.stats(topic);
		}

		@Override
		public List<DeadLetter> deadLetters(String topic, int offset, int limit) {
			return this.delegate.deadLetters(topic, offset, limit);
		}

		@Override
		public boolean replayDeadLetter(String topic, String id) {
			return this.delegate.replayDeadLetter(topic, id);
		}

		@Override
		public long replayDeadLetters(String topic) {
			return this.delegate.replayDeadLetters(topic);
		}

		@Override
		public boolean purgeDeadLetter(String topic, String id) {
			return this.delegate.purgeDeadLetter(topic, id);
		}

		@Override
		public long purgeDeadLetters(String topic) {
			return this.delegate.purgeDeadLetters(topic);
		}

	}

}
