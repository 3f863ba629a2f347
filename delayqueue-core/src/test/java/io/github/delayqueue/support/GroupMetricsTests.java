package io.github.delayqueue.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery meters tagged by group only for the groups named, with listeners on a real Redis: the named group's own
 * series, "other" for the rest, the same tag keys on every meter of a name, and no group tag unless asked.
 */
class GroupMetricsTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	private void listen(MicrometerDelayQueueMonitor monitor, String topic) {
		this.fixture.consumer(this.fixture.connectionFactory(),
				(factory) -> factory.getContainerProperties().setMonitor(monitor))
			.listeners()
			.register(ListenerRegistration.of(topic, String.class, (payload, message) -> {
				if (payload.startsWith("fail")) {
					throw new IllegalStateException("boom");
				}
			}, ListenerOptions.builder()
				.maxAttempts(1)
				.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(10, 0)))
				.build()));
	}

	private void schedule(String topic, @org.jspecify.annotations.Nullable String group, String payload) {
		ScheduleRequest.Builder request = ScheduleRequest.builder(topic, payload);
		this.queue.schedule(((group != null) ? request.group(group) : request).build());
	}

	@Test
	void theNamedGroupsGetTheirOwnSeriesAndEveryOtherMessageCountsAsOther() {
		listen(new MicrometerDelayQueueMonitor(this.registry, false, Map.of("tenants", List.of("acme"))), "tenants");

		schedule("tenants", "acme", "a1");
		schedule("tenants", "acme", "a2");
		schedule("tenants", "acme", "fail-a");
		schedule("tenants", "globex", "g1");
		schedule("tenants", null, "plain");

		await().atMost(Duration.ofSeconds(20))
			.until(() -> delivered("acme") == 2 && delivered("other") == 2 && dead("acme") == 1);
		assertThat(this.registry.get("delayqueue.lateness").tags("topic", "tenants", "group", "acme").timer().count())
			.isEqualTo(3);
		assertThat(this.registry.get("delayqueue.lateness").tags("topic", "tenants", "group", "other").timer().count())
			.isEqualTo(2);
		assertThat(this.registry.find("delayqueue.messages.delivered").tag("group", "globex").counters())
			.as("a group not named has no series").isEmpty();
		// every meter of these names has the same tag keys (Prometheus requires it)
		for (String name : List.of("delayqueue.messages.delivered", "delayqueue.lateness", "delayqueue.messages.dead")) {
			assertThat(this.registry.find(name).meters()).isNotEmpty()
				.allSatisfy((meter) -> assertThat(tagKeys(meter)).contains("group"));
		}
	}

	@Test
	void withoutNamedGroupsNoMeterHasAGroupTag() {
		listen(new MicrometerDelayQueueMonitor(this.registry, false, Map.of()), "untagged");

		schedule("untagged", "acme", "a1");
		schedule("untagged", null, "fail-x");

		await().atMost(Duration.ofSeconds(20)).until(() -> this.registry.find("delayqueue.messages.delivered")
			.counters()
			.stream()
			.mapToDouble((c) -> c.count())
			.sum() == 1 && !this.registry.find("delayqueue.messages.dead").counters().isEmpty());
		assertThat(this.registry.getMeters()).noneMatch((meter) -> tagKeys(meter).contains("group"));
	}

	private double delivered(String group) {
		var counter = this.registry.find("delayqueue.messages.delivered").tags("topic", "tenants", "group", group)
			.counter();
		return (counter != null) ? counter.count() : 0;
	}

	private double dead(String group) {
		return this.registry.find("delayqueue.messages.dead")
			.tags("topic", "tenants", "group", group)
			.counters()
			.stream()
			.mapToDouble((c) -> c.count())
			.sum();
	}

	private static List<String> tagKeys(Meter meter) {
		return meter.getId().getTags().stream().map((tag) -> tag.getKey()).toList();
	}

}
