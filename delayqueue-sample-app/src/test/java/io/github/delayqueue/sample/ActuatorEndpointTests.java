package io.github.delayqueue.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.JsonTree;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.util.TestSocketUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's actuator: the delayqueue endpoint, metrics and health over real HTTP.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "delayqueue.metrics.refresh-interval=200ms", "management.endpoint.delayqueue.access=unrestricted" })
class ActuatorEndpointTests {

	private static final int REDIS_PORT = TestSocketUtils.findAvailableTcpPort();

	private final HttpClient client = HttpClient.newHttpClient();


	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", () -> "localhost");
		registry.add("spring.data.redis.port", () -> REDIS_PORT);
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
	void theEndpointListsTopicsAndManagesDeadLetters() throws Exception {
		this.queue.schedule("reports", "r-1", "first", Duration.ZERO);
		this.queue.schedule("reports", "r-2", "second", Duration.ZERO);
		this.queue.schedule("reports", "r-3", "later", Duration.ofHours(1));
		for (ClaimedMessage message : this.store.leases().claim("reports", 10, 60_000, 5).messages()) {
			this.store.leases().bury("reports", message.lease(), "java.lang.IllegalStateException: printer on fire");
		}

		JsonTree topics = call("GET", "/actuator/delayqueue").body();
		JsonTree reports = topic(topics, "reports");
		assertThat(reports.get("waiting").asLong()).isEqualTo(1);
		assertThat(reports.get("dead").asLong()).isEqualTo(2);
		assertThat(reports.get("nextDueAt").isNull()).isFalse();
		JsonTree timeouts = topic(topics, "order-timeout");
		assertThat(reports.get("listener").isNull()).isTrue();
		assertThat(timeouts.get("listener").get("running").asBoolean()).isTrue();
		// the sample's recurring report, declared in application.yml, with its next tick
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			JsonTree recurring = call("GET", "/actuator/delayqueue").body().get("recurring");
			assertThat(recurring.get(0).get("name").asString()).isEqualTo("cancelled-orders-report");
			assertThat(recurring.get(0).get("topic").asString()).isEqualTo("order-report");
			assertThat(recurring.get(0).get("nextTick").isNull()).isFalse();
		});

		JsonTree dead = call("GET", "/actuator/delayqueue/reports/dead?limit=10").body();
		assertThat(dead.get("total").asLong()).isEqualTo(2);
		assertThat(dead.get("deadLetters").get(0).get("error").asString()).contains("printer on fire");
		assertThat(dead.get("deadLetters").get(0).get("payload").asString()).isIn("\"first\"", "\"second\"");
		assertThat(call("GET", "/actuator/delayqueue/reports/other").status()).isEqualTo(404);
		assertThat(call("GET", "/actuator/delayqueue/bad%20topic/dead").status()).isEqualTo(400);

		assertThat(call("POST", "/actuator/delayqueue/reports/dead/r-1").body().get("count").asLong()).isEqualTo(1);
		assertThat(this.admin.stats("reports").ready()).isEqualTo(1);
		assertThat(call("DELETE", "/actuator/delayqueue/reports/dead").body().get("count").asLong()).isEqualTo(1);
		assertThat(this.admin.stats("reports").dead()).isZero();
		assertThat(call("POST", "/actuator/delayqueue/reports/dead").body().get("count").asLong()).isZero();
	}

	@Test
	void theEndpointLooksUpListsPausesAndLimitsATopic() throws Exception {
		for (int i = 0; i < 5; i++) {
			this.queue.schedule(ScheduleRequest.builder("controlled", "p-" + i)
				.id("c-" + i)
				.delay(Duration.ofHours(1).plusSeconds(i))
				.build());
		}
		JsonTree message = call("GET", "/actuator/delayqueue/controlled/messages/c-2").body();
		assertThat(message.get("state").asString()).isEqualTo("WAITING");
		assertThat(message.get("payload").asString()).isEqualTo("\"p-2\"");
		assertThat(call("GET", "/actuator/delayqueue/controlled/messages/none").status()).isEqualTo(404);

		JsonTree page = call("GET", "/actuator/delayqueue/controlled/waiting?limit=3").body();
		assertThat(page.get("messages").size()).isEqualTo(3);
		assertThat(page.get("messages").get(0).get("id").asString()).isEqualTo("c-0");
		String cursor = page.get("nextCursor").asString();
		JsonTree next = call("GET", "/actuator/delayqueue/controlled/waiting?limit=3&cursor=" + cursor).body();
		assertThat(next.get("messages").size()).isEqualTo(2);
		assertThat(next.get("nextCursor").isNull()).isTrue();
		assertThat(call("GET", "/actuator/delayqueue/controlled/waiting?cursor=bogus").status()).isEqualTo(400);

		// counted by due time, exactly, without reading a message: all five fall due an hour from now
		Instant from = Instant.now().plus(Duration.ofMinutes(30));
		JsonTree due = call("GET", "/actuator/delayqueue/controlled/due?windows=2&from=" + from + "&to="
				+ from.plus(Duration.ofHours(2))).body();
		assertThat(due.get("windows").size()).isEqualTo(2);
		assertThat(due.get("windows").get(0).get("count").asLong()).isEqualTo(5);
		assertThat(due.get("windows").get(1).get("count").asLong()).isZero();
		assertThat(due.get("before").asLong() + due.get("after").asLong()).isZero();
		assertThat(call("GET", "/actuator/delayqueue/controlled/due?windows=0").status()).isEqualTo(400);

		assertThat(call("POST", "/actuator/delayqueue/controlled/pause").body().get("paused").asBoolean()).isTrue();
		assertThat(call("GET", "/actuator/delayqueue/controlled").body().get("paused").asBoolean()).isTrue();
		assertThat(call("POST", "/actuator/delayqueue/controlled/resume").body().get("paused").asBoolean()).isFalse();

		JsonTree limited = post("/actuator/delayqueue/controlled", "{\"ratePerSecond\": 50, \"maxInFlight\": 4}");
		assertThat(limited.get("limits").get("ratePerSecond").asDouble()).isEqualTo(50.0);
		assertThat(limited.get("limits").get("maxInFlight").asInt()).isEqualTo(4);
		assertThat(call("GET", "/actuator/delayqueue/controlled").body().get("limits").get("maxInFlight").asInt())
			.isEqualTo(4);
		assertThat(postStatus("/actuator/delayqueue/controlled", "{\"maxInFlight\": -1}")).isEqualTo(400);
		JsonTree kept = post("/actuator/delayqueue/controlled", "{\"ratePerSecond\": 0}");
		assertThat(kept.get("limits").get("ratePerSecond").isNull()).as("0 clears").isTrue();
		assertThat(kept.get("limits").get("maxInFlight").asInt()).as("left out: kept").isEqualTo(4);
	}

	private JsonTree post(String path, String json) throws Exception {
		HttpResponse<String> response = postJson(path, json);
		assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
		return JsonTree.parse(response.body());
	}

	private int postStatus(String path, String json) throws Exception {
		return postJson(path, json).statusCode();
	}

	private HttpResponse<String> postJson(String path, String json) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json))
			.build();
		return this.client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void metricsAndHealthAreExposed() throws Exception {
		this.queue.schedule("metered", "x", Duration.ofHours(1));
		JsonTree scheduled = call("GET", "/actuator/metrics/delayqueue.messages.scheduled?tag=topic:metered").body();
		assertThat(scheduled.get("measurements").get(0).get("value").asDouble()).isEqualTo(1.0);
		await().atMost(Duration.ofSeconds(20)).until(() -> call("GET",
				"/actuator/metrics/delayqueue.messages.waiting?tag=topic:metered").status() == 200);

		JsonTree health = call("GET", "/actuator/health").body();
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.get("components").get("delayqueue").get("status").asString()).isEqualTo("UP");
	}

	private static JsonTree topic(JsonTree topics, String name) {
		for (JsonTree topic : topics.get("topics")) {
			if (topic.get("topic").asString().equals(name)) {
				return topic;
			}
		}
		throw new AssertionError("No topic " + name + " in " + topics);
	}

	private Response call(String method, String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.method(method, HttpRequest.BodyPublishers.noBody())
			.build();
		HttpResponse<String> response = this.client.send(request, HttpResponse.BodyHandlers.ofString());
		JsonTree body = response.body().isEmpty() ? null : JsonTree.parse(response.body());
		return new Response(response.statusCode(), body);
	}

	record Response(int status, JsonTree body) {
	}

}
