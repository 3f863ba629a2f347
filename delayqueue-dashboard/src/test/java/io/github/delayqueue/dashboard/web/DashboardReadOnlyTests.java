package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.JsonTree;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The dashboard of an application that opened nothing: it shows every topic and refuses every write.
 */
@SpringBootTest(classes = PlainApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "delayqueue.dashboard.sample-interval=200ms")
class DashboardReadOnlyTests {

	static final TestRedis redis = TestRedis.builder().build();

	private static final Duration WAIT = Duration.ofSeconds(20);

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

	@Autowired
	private RedisMessageStore store;

	@Test
	void thePageShowsEveryTopicWithItsCountsAndIsReadOnly() {
		Http http = new Http(this.port);
		this.queue.schedule("ro-orders", "o-1", Map.of("order", "o-1"), Duration.ofMinutes(30));
		awaitTopic(http, "ro-orders", (t) -> t.get("waiting").asLong() == 1);
		this.queue.schedule("ro-orders", "o-2", Map.of("order", "o-2"), Duration.ZERO);
		// a rate needs samples before and after the second schedule
		JsonTree topic = awaitTopic(http, "ro-orders",
				(t) -> t.get("waiting").asLong() == 1 && !t.get("scheduledPerSecond").isNull());
		assertThat(topic.get("ready").asLong()).isEqualTo(1);
		assertThat(topic.get("partitions").asInt()).isEqualTo(1);
		assertThat(topic.get("nextDueAt").isNull()).isFalse();
		assertThat(topic.get("trend").get("waiting").size()).isPositive();
		assertThat(topic.get("scheduledPerSecond").asDouble()).as("metered: Actuator gives a registry").isPositive();

		Http.Response page = http.get("/delayqueue");
		assertThat(page.status()).isEqualTo(200);
		assertThat(page.contentType()).startsWith("text/html");
		assertThat(page.data("writable")).isEqualTo("false");
		assertThat(page.data("api")).isEqualTo("/delayqueue/api");
		assertThat(page.data("csrf-token")).as("no Spring Security here").isNull();
		assertThat(page.body()).contains("id=\"topic-row-ro-orders\"", "read-only", "/delayqueue/assets/dashboard.js");
		assertThat(http.get("/delayqueue/").status()).isEqualTo(200);

		Http.Response script = http.get("/delayqueue/assets/dashboard.js");
		assertThat(script.status()).isEqualTo(200);
		assertThat(script.contentType()).startsWith("text/javascript");
		assertThat(script.body()).contains("/overview");
		Http.Response css = http.get("/delayqueue/assets/dashboard.css");
		assertThat(css.contentType()).startsWith("text/css");
		assertThat(http.get("/delayqueue/assets/other.js").status()).isEqualTo(404);
	}

	@Test
	void writesAreRefusedAndChangeNothing() {
		Http http = new Http(this.port);
		deadLetter("ro-dead", "d-1");
		awaitTopic(http, "ro-dead", (t) -> t.get("dead").asLong() == 1);

		Http.Response pause = http.post("/delayqueue/api/topics/ro-dead/pause");
		assertThat(pause.status()).isEqualTo(403);
		assertThat(pause.json().get("title").asString()).isEqualTo("Read-only dashboard");
		assertThat(pause.json().get("detail").asString()).contains("management.endpoint.delayqueue.access");
		assertThat(http.post("/delayqueue/api/topics/ro-dead/resume").status()).isEqualTo(403);
		assertThat(http.post("/delayqueue/api/topics/ro-dead/dead/replay?id=d-1").status()).isEqualTo(403);
		assertThat(http.post("/delayqueue/api/topics/ro-dead/dead/replay").status()).isEqualTo(403);
		assertThat(http.delete("/delayqueue/api/topics/ro-dead/dead?id=d-1").status()).isEqualTo(403);
		assertThat(http.delete("/delayqueue/api/topics/ro-dead/dead").status()).isEqualTo(403);
		assertThat(http.post("/delayqueue/api/topics/ro-dead/limits", "{\"maxInFlight\": 3}", Map.of()).status())
			.isEqualTo(403);

		assertThat(this.admin.controls("ro-dead").paused()).isFalse();
		assertThat(this.admin.controls("ro-dead").limits().isLimited()).isFalse();
		assertThat(this.admin.stats("ro-dead").dead()).isEqualTo(1);
		assertThat(http.get("/delayqueue/api/overview").json().get("writable").asBoolean()).isFalse();
	}

	@Test
	void looksUpAMessageInAnyState() {
		Http http = new Http(this.port);
		this.queue.schedule(ScheduleRequest.builder("ro-lookup", Map.of("n", 1))
			.id("l-1")
			.header("tenant", "acme")
			.delay(Duration.ofHours(1))
			.build());
		deadLetter("ro-lookup", "l-2");

		JsonTree waiting = http.get("/delayqueue/api/topics/ro-lookup/message?id=l-1").json();
		assertThat(waiting.get("state").asString()).isEqualTo("WAITING");
		assertThat(waiting.get("payload").asString()).isEqualTo("{\"n\":1}");
		assertThat(waiting.get("headers").get("tenant").asString()).isEqualTo("acme");
		assertThat(waiting.get("dueAt").isNull()).isFalse();
		JsonTree dead = http.get("/delayqueue/api/topics/ro-lookup/message?id=l-2").json();
		assertThat(dead.get("state").asString()).isEqualTo("DEAD");
		assertThat(dead.get("error").asString()).contains("printer on fire");
		assertThat(http.get("/delayqueue/api/topics/ro-lookup/message?id=none").status()).isEqualTo(404);
		assertThat(http.get("/delayqueue/api/topics/bad%20topic/message?id=x").status()).isEqualTo(400);
	}

	@Test
	void listsWaitingMessagesByDueTimeAPageAtATime() {
		Http http = new Http(this.port);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 25; i++) {
			requests.add(ScheduleRequest.builder("ro-paged", i)
				.id(String.format("p-%02d", i))
				.delay(Duration.ofMinutes(10 + i))
				.build());
		}
		this.queue.scheduleAll(requests);

		List<String> ids = new ArrayList<>();
		String cursor = null;
		int pages = 0;
		do {
			String query = "/delayqueue/api/topics/ro-paged/waiting?limit=10"
					+ ((cursor != null) ? "&cursor=" + cursor : "");
			JsonTree page = http.get(query).json();
			assertThat(page.get("messages").size()).isLessThanOrEqualTo(10);
			page.get("messages").forEach((m) -> ids.add(m.get("id").asString()));
			cursor = page.get("nextCursor").isNull() ? null : page.get("nextCursor").asString();
			pages++;
		}
		while (cursor != null && pages < 10);
		assertThat(pages).isEqualTo(3);
		assertThat(ids).hasSize(25).first().isEqualTo("p-00");
		assertThat(ids).isSorted().doesNotHaveDuplicates();
		assertThat(http.get("/delayqueue/api/topics/ro-paged/waiting?limit=101").status()).isEqualTo(400);
		assertThat(http.get("/delayqueue/api/topics/ro-paged/waiting?cursor=bogus").status()).isEqualTo(400);
	}

	@Test
	void listsTheGroupsWithTheMostWaiting() {
		Http http = new Http(this.port);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 9; i++) {
			requests.add(ScheduleRequest.builder("ro-groups", i)
				.group((i < 6) ? "acme" : "globex")
				.delay(Duration.ofMinutes(10))
				.build());
		}
		this.queue.scheduleAll(requests);

		JsonTree top = http.get("/delayqueue/api/topics/ro-groups/groups?top=5").json();

		assertThat(top.get("complete").asBoolean()).isTrue();
		assertThat(top.get("groups").size()).isEqualTo(2);
		assertThat(top.get("groups").get(0).get("group").asString()).isEqualTo("acme");
		assertThat(top.get("groups").get(0).get("waiting").asLong()).isEqualTo(6);
		assertThat(top.get("groups").get(0).get("inFlight").asLong()).isZero();
		assertThat(top.get("groups").get(1).get("waiting").asLong()).isEqualTo(3);
		assertThat(http.get("/delayqueue/api/topics/ro-groups/groups?top=101").status()).isEqualTo(400);
		assertThat(http.get("/delayqueue").body()).contains("id=\"groups-rows\"");
	}

	@Test
	void listsDeadLettersWithTheirLastError() {
		Http http = new Http(this.port);
		deadLetter("ro-letters", "x-1");
		JsonTree page = http.get("/delayqueue/api/topics/ro-letters/dead?limit=5").json();
		assertThat(page.get("total").asLong()).isEqualTo(1);
		JsonTree letter = page.get("deadLetters").get(0);
		assertThat(letter.get("id").asString()).isEqualTo("x-1");
		assertThat(letter.get("error").asString()).isEqualTo("java.lang.IllegalStateException: printer on fire");
		assertThat(letter.get("diedAt").isNull()).isFalse();
		assertThat(letter.get("attempts").asInt()).isEqualTo(1);
	}

	@Test
	void theTimelineCountsWhenWaitingMessagesFallDue() {
		Http http = new Http(this.port);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			requests.add(ScheduleRequest.builder("ro-timeline", i).delay(Duration.ofSeconds(20 + i)).build());
		}
		for (int i = 0; i < 3; i++) {
			requests.add(ScheduleRequest.builder("ro-timeline", i).delay(Duration.ofMinutes(51).plusSeconds(i)).build());
		}
		requests.add(ScheduleRequest.builder("ro-timeline", "later").delay(Duration.ofHours(3)).build());
		this.queue.scheduleAll(requests);

		JsonTree timeline = http.get("/delayqueue/api/topics/ro-timeline/timeline?seconds=3600").json();
		JsonTree buckets = timeline.get("buckets");
		assertThat(buckets.size()).isEqualTo(30);
		assertThat(timeline.get("bucketMillis").asLong()).isEqualTo(120_000);
		assertThat(buckets.get(0).get("count").asInt()).isEqualTo(5);
		assertThat(buckets.get(25).get("count").asInt()).isEqualTo(3);
		int total = 0;
		for (JsonTree bucket : buckets) {
			total += bucket.get("count").asInt();
		}
		assertThat(total).as("the message due in 3 hours is beyond the horizon").isEqualTo(8);
		assertThat(timeline.get("later").asLong()).isEqualTo(1);
		assertThat(timeline.get("overdue").asLong()).isZero();
		assertThat(http.get("/delayqueue/api/topics/ro-timeline/timeline?seconds=1").status()).isEqualTo(400);
	}

	@Test
	void aSubscriptionHasARowOfItsOwnBesideItsTopicAndItsApi() {
		Http http = new Http(this.port);
		this.admin.declareSubscription("ro-subscribed", "audit");
		this.queue.schedule("ro-subscribed", "s-1", "waiting in the topic", Duration.ofMinutes(30));
		// its copies, once due: dead-lettered in the subscription alone
		this.queue.schedule("ro-subscribed", "s-2", "due now", Duration.ZERO);
		String audit = "ro-subscribed@audit";
		this.store.leases().claim(audit, 10, 60_000, 5).messages()
			.forEach((message) -> this.store.leases().bury(audit, message.lease(), "java.lang.IllegalStateException"));

		awaitTopic(http, "ro-subscribed", (t) -> t.get("waiting").asLong() == 1 && t.get("dead").asLong() == 0);
		JsonTree row = awaitTopic(http, audit, (t) -> t.get("dead").asLong() == 1);
		assertThat(row.get("partitions").asInt()).isEqualTo(1);
		assertThat(http.get("/delayqueue").body()).contains("id=\"topic-row-" + audit + "\"");
		assertThat(http.get("/delayqueue/api/topics/" + audit + "/timeline?seconds=3600").status()).isEqualTo(200);
		assertThat(http.get("/delayqueue/api/topics/" + audit + "/dead").json().toString()).contains("s-2");
	}

	private void deadLetter(String topic, String id) {
		this.queue.schedule(topic, id, "payload of " + id, Duration.ZERO);
		for (ClaimedMessage message : this.store.leases().claim(topic, 10, 60_000, 5).messages()) {
			this.store.leases().bury(topic, message.lease(), "java.lang.IllegalStateException: printer on fire");
		}
	}

	static JsonTree awaitTopic(Http http, String name, java.util.function.Predicate<JsonTree> condition) {
		JsonTree[] found = new JsonTree[1];
		await().atMost(WAIT).until(() -> {
			for (JsonTree topic : http.get("/delayqueue/api/overview").json().get("topics")) {
				if (topic.get("topic").asString().equals(name) && condition.test(topic)) {
					found[0] = topic;
					return true;
				}
			}
			return false;
		});
		return found[0];
	}

}
