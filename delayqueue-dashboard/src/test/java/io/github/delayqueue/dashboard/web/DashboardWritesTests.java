package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.Map;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
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

/**
 * The dashboard of an application that opened the delayqueue endpoint's writes: it opens its own.
 */
@SpringBootTest(classes = PlainApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "delayqueue.dashboard.sample-interval=200ms",
				"management.endpoint.delayqueue.access=unrestricted" })
class DashboardWritesTests {

	static final TestRedis redis = TestRedis.builder().build();

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
	void thePageSaysWritesAreOpen() {
		Http http = new Http(this.port);
		Http.Response page = http.get("/delayqueue");
		assertThat(page.data("writable")).isEqualTo("true");
		assertThat(page.body()).contains("writes open");
		assertThat(http.get("/delayqueue/api/overview").json().get("writable").asBoolean()).isTrue();
	}

	@Test
	void pausesResumesAndLimitsATopicOnEveryInstance() {
		Http http = new Http(this.port);
		this.queue.schedule("w-controlled", "c-1", "x", Duration.ofHours(1));

		JsonTree paused = http.post("/delayqueue/api/topics/w-controlled/pause").json();
		assertThat(paused.get("paused").asBoolean()).isTrue();
		assertThat(this.admin.controls("w-controlled").paused()).isTrue();
		DashboardReadOnlyTests.awaitTopic(http, "w-controlled", (t) -> t.get("paused").asBoolean());

		assertThat(http.post("/delayqueue/api/topics/w-controlled/resume").json().get("paused").asBoolean()).isFalse();
		assertThat(this.admin.controls("w-controlled").paused()).isFalse();

		Http.Response limited = http.post("/delayqueue/api/topics/w-controlled/limits",
				"{\"ratePerSecond\": 25, \"maxInFlight\": 4}", Map.of());
		assertThat(limited.status()).isEqualTo(200);
		assertThat(this.admin.controls("w-controlled").limits().maxInFlight()).isEqualTo(4);
		assertThat(this.admin.controls("w-controlled").limits().ratePerSecond()).isEqualTo(25.0);
		JsonTree topic = DashboardReadOnlyTests.awaitTopic(http, "w-controlled", (t) -> !t.get("maxInFlight").isNull());
		assertThat(topic.get("ratePerSecond").asDouble()).isEqualTo(25.0);

		assertThat(http.post("/delayqueue/api/topics/w-controlled/limits", "{\"ratePerSecond\": null}", Map.of())
			.status()).isEqualTo(200);
		assertThat(this.admin.controls("w-controlled").limits().isLimited()).as("empty: no limits").isFalse();
		assertThat(http.post("/delayqueue/api/topics/w-controlled/limits", "{\"maxInFlight\": -2}", Map.of()).status())
			.isEqualTo(400);
		assertThat(http.post("/delayqueue/api/topics/never-used/pause").status()).as("a misspelt topic").isEqualTo(400);
	}

	@Test
	void replaysAndPurgesDeadLetters() {
		Http http = new Http(this.port);
		for (String id : new String[] { "d-1", "d-2", "d-3" }) {
			this.queue.schedule("w-dead", id, "payload of " + id, Duration.ZERO);
		}
		for (ClaimedMessage message : this.store.leases().claim("w-dead", 10, 60_000, 5).messages()) {
			this.store.leases().bury("w-dead", message.lease(), "java.lang.IllegalStateException: boom");
		}

		assertThat(http.post("/delayqueue/api/topics/w-dead/dead/replay?id=d-1").json().get("count").asLong())
			.isEqualTo(1);
		assertThat(this.admin.lookup("w-dead", "d-1").orElseThrow().state().name()).isEqualTo("WAITING");
		assertThat(http.post("/delayqueue/api/topics/w-dead/dead/replay?id=d-1").json().get("count").asLong())
			.as("no longer dead").isZero();
		assertThat(http.delete("/delayqueue/api/topics/w-dead/dead?id=d-2").json().get("count").asLong()).isEqualTo(1);
		assertThat(this.admin.lookup("w-dead", "d-2")).isEmpty();
		assertThat(http.post("/delayqueue/api/topics/w-dead/dead/replay").json().get("count").asLong()).isEqualTo(1);
		assertThat(this.admin.stats("w-dead").dead()).isZero();
		assertThat(this.admin.stats("w-dead").ready()).isEqualTo(2);
		assertThat(http.delete("/delayqueue/api/topics/w-dead/dead").json().get("count").asLong()).isZero();
		// the page sees it at once: the topic is sampled again after a change
		JsonTree topic = DashboardReadOnlyTests.awaitTopic(http, "w-dead", (t) -> true);
		assertThat(topic.get("dead").asLong()).isZero();
	}

}
