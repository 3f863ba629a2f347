package io.github.delayqueue.dashboard.web;

import java.time.Duration;
import java.util.List;
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
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

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

	private WebTestClient client;

	@BeforeEach
	void client() {
		this.client = WebTestClient.bindToServer()
			.baseUrl("http://localhost:" + this.port)
			.responseTimeout(Duration.ofSeconds(30))
			.build();
	}

	@Test
	void theDashboardPausesResumesAndLimitsATopic() {
		this.queue.schedule("rx-writes", "w-1", "x", Duration.ofMinutes(30));
		this.client.get()
			.uri("/delayqueue")
			.exchange()
			.expectBody(String.class)
			.value((page) -> assertThat(page).contains("data-writable=\"true\"", "writes open"));

		this.client.post()
			.uri("/delayqueue/api/topics/rx-writes/pause")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.paused")
			.isEqualTo(true);
		assertThat(this.admin.controls("rx-writes").paused()).isTrue();
		this.client.post().uri("/delayqueue/api/topics/rx-writes/resume").exchange().expectStatus().isOk();
		assertThat(this.admin.controls("rx-writes").paused()).isFalse();

		this.client.post()
			.uri("/delayqueue/api/topics/rx-writes/limits")
			.contentType(MediaType.APPLICATION_JSON)
			.bodyValue("{\"ratePerSecond\": 5, \"maxInFlight\": 3}")
			.exchange()
			.expectStatus()
			.isOk();
		assertThat(this.admin.controls("rx-writes").limits().maxInFlight()).isEqualTo(3);
		this.client.delete()
			.uri("/delayqueue/api/topics/rx-writes/dead?id=none")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody()
			.jsonPath("$.count")
			.isEqualTo(0);
		this.client.post().uri("/delayqueue/api/topics/unknown-topic/pause").exchange().expectStatus().isBadRequest();
	}

	@Test
	void redisCallsRunOffTheEventLoop() {
		this.queue.schedule("rx-threads", "t-1", "x", Duration.ofMinutes(30));
		this.client.get().uri("/delayqueue/api/topics/rx-threads/message?id=t-1").exchange().expectStatus().isOk();
		assertThat(ThreadRecordingBrowser.threads).isNotEmpty()
			.allSatisfy((thread) -> assertThat(thread).startsWith("boundedElastic-"));
	}

	@Test
	void theActuatorEndpointsWritesAnswerOnWebFlux() {
		this.queue.schedule("rx-endpoint-writes", "w-1", "x", Duration.ofMinutes(30));
		this.client.post()
			.uri("/actuator/delayqueue/rx-endpoint-writes/pause")
			.exchange()
			.expectStatus()
			.is2xxSuccessful();
		assertThat(this.admin.controls("rx-endpoint-writes").paused()).isTrue();
		this.client.post()
			.uri("/actuator/delayqueue/rx-endpoint-writes/resume")
			.exchange()
			.expectStatus()
			.is2xxSuccessful();
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
