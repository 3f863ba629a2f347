package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.dashboard.MessageView;
import io.github.delayqueue.dashboard.TopicBrowser;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A WebFlux application that opened the delayqueue endpoint's writes: the endpoint's write operations and the
 * dashboard's writes are open, on a real reactive server; the dashboard's Redis calls run off the event loop.
 */
@SpringBootTest(classes = { ReactiveApplication.class, ReactiveDashboardWritesTests.ThreadRecordingBrowser.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.main.web-application-type=reactive", "delayqueue.dashboard.sample-interval=200ms",
				"management.endpoints.web.exposure.include=delayqueue",
				"management.endpoint.delayqueue.access=unrestricted" })
class ReactiveDashboardWritesTests {

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

	private Http http;

	@BeforeEach
	void client() {
		// plain HTTP rather than WebTestClient (see ReactiveDashboardTests): the same test runs on Boot 3.5
		this.http = new Http(this.port);
	}

	@Test
	void theDashboardPausesResumesAndLimitsATopic() {
		this.queue.schedule("rx-writes", "w-1", "x", Duration.ofMinutes(30));
		assertThat(this.http.get("/delayqueue").body()).contains("data-writable=\"true\"", "writes open");

		Http.Response paused = this.http.post("/delayqueue/api/topics/rx-writes/pause");
		assertThat(paused.status()).isEqualTo(200);
		assertThat(paused.json().get("paused").asBoolean()).isTrue();
		assertThat(this.admin.controls("rx-writes").paused()).isTrue();
		assertThat(this.http.post("/delayqueue/api/topics/rx-writes/resume").status()).isEqualTo(200);
		assertThat(this.admin.controls("rx-writes").paused()).isFalse();

		assertThat(this.http.post("/delayqueue/api/topics/rx-writes/limits", "{\"ratePerSecond\": 5, \"maxInFlight\": 3}",
				Map.of()).status()).isEqualTo(200);
		assertThat(this.admin.controls("rx-writes").limits().maxInFlight()).isEqualTo(3);
		Http.Response purged = this.http.delete("/delayqueue/api/topics/rx-writes/dead?id=none");
		assertThat(purged.status()).isEqualTo(200);
		assertThat(purged.json().get("count").asLong()).isZero();
		assertThat(this.http.post("/delayqueue/api/topics/unknown-topic/pause").status()).isEqualTo(400);
	}

	@Test
	void redisCallsRunOffTheEventLoop() {
		this.queue.schedule("rx-threads", "t-1", "x", Duration.ofMinutes(30));
		assertThat(this.http.get("/delayqueue/api/topics/rx-threads/message?id=t-1").status()).isEqualTo(200);
		assertThat(ThreadRecordingBrowser.threads).isNotEmpty()
			.allSatisfy((thread) -> assertThat(thread).startsWith("boundedElastic-"));
	}

	@Test
	void theActuatorEndpointsWritesAnswerOnWebFlux() {
		this.queue.schedule("rx-endpoint-writes", "w-1", "x", Duration.ofMinutes(30));
		assertThat(this.http.post("/actuator/delayqueue/rx-endpoint-writes/pause").status()).isBetween(200, 299);
		assertThat(this.admin.controls("rx-endpoint-writes").paused()).isTrue();
		assertThat(this.http.post("/actuator/delayqueue/rx-endpoint-writes/resume").status()).isBetween(200, 299);
		assertThat(this.admin.controls("rx-endpoint-writes").paused()).isFalse();
	}

	/** The application's own browser (the auto-configuration backs off): records where look-ups run. */
	@Configuration(proxyBeanMethods = false)
	static class ThreadRecordingBrowser {

		static final List<String> threads = new CopyOnWriteArrayList<>();

		@Bean
		TopicBrowser topicBrowser(DelayedQueueAdmin admin) {
			return new TopicBrowser(admin) {

				@Override
				public Optional<MessageView> lookup(String topic, String id) {
					threads.add(Thread.currentThread().getName());
					return super.lookup(topic, id);
				}

			};
		}

	}

}
