package io.github.delayqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopGroups;
import io.github.delayqueue.TopGroups.GroupCount;
import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Groups in Spring Boot, on a real Redis: counts of many groups through the actuator endpoint
 * ({@code GET …/{topic}/groups?top=…}), group weights from the properties and the endpoint, and delivery meters tagged
 * by the groups the properties name.
 */
class GroupCountsEndpointTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class,
				DelayQueueEndpointAutoConfiguration.class)))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database(),
				"management.endpoints.web.exposure.include=delayqueue");

	@Test
	void theEndpointListsTheGroupsWithTheMostWaiting() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			DelayedQueue queue = context.getBean(DelayedQueue.class);
			List<ScheduleRequest> requests = new ArrayList<>();
			for (int i = 0; i < 12; i++) {
				requests.add(ScheduleRequest.builder("ranked", i).group((i < 8) ? "heavy" : "light")
					.delay(java.time.Duration.ofMinutes(5))
					.build());
			}
			queue.scheduleAll(requests);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);

			Object top = endpoint.topicPart("ranked", "groups", null, null, null, null, null, null, null);

			assertThat(top).isInstanceOfSatisfying(TopGroups.class, (groups) -> {
				assertThat(groups.complete()).isTrue();
				assertThat(groups.groups()).extracting(GroupCount::group).containsExactly("heavy", "light");
				assertThat(groups.groups()).extracting(GroupCount::waiting).containsExactly(8L, 4L);
			});
			assertThat(endpoint.topicPart("ranked", "groups", null, null, null, null, null, null, 1))
				.isInstanceOfSatisfying(TopGroups.class, (groups) -> assertThat(groups.groups()).hasSize(1));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.topicPart("ranked", "groups", null, null, null, null, null, null, 0))
				.withMessageContaining("between 1 and 100");
		});
	}

	@Test
	void declaredGroupWeightsAreAppliedToRedisAndTheEndpointChangesThem() {
		this.runner.withPropertyValues("delayqueue.topics.weighed.groups.gold.weight=3").run((context) -> {
			assertThat(context).hasNotFailed();
			DelayedQueueAdmin admin = context.getBean(DelayedQueueAdmin.class);
			assertThat(admin.groupControls("weighed", "gold").weight()).isEqualTo(3);
			assertThat(admin.groupControls("weighed", "bronze").weight()).isEqualTo(1);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			assertThat(endpoint.changeGroup("weighed", "groups", "bronze", "weight", null, 2, null))
				.satisfies((state) -> assertThat(state.weight()).isEqualTo(2));
			assertThat(endpoint.changeGroup("weighed", "groups", "gold", "weight", null, 0, null))
				.satisfies((state) -> assertThat(state.weight()).isEqualTo(1));
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.changeGroup("weighed", "groups", "gold", "weight", null, 101, null))
				.withMessageContaining("between 1 and 100");
			assertThatExceptionOfType(InvalidEndpointRequestException.class)
				.isThrownBy(() -> endpoint.changeGroup("weighed", "groups", "gold", "weight", null, null, null))
				.withMessageContaining("weight is required");
			assertThat(admin.groupControls("weighed", "gold").weight()).as("nothing written").isEqualTo(1);
		});
	}

	@Test
	void aGroupWeightOutOfRangeFailsTheStartNamingTheProperty() {
		for (String value : new String[] { "0", "101" }) {
			this.runner.withPropertyValues("delayqueue.topics.weighed.groups.gold.weight=" + value).run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("between 1 and 100");
				assertThat(fullMessage(context.getStartupFailure()))
					.contains("delayqueue.topics.weighed.groups.gold.weight");
			});
		}
	}

	@Test
	void theGroupsNamedForMetricsGetAGroupTagOnTheDeliveryMeters() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("delayqueue.topics.tenants.metrics.groups=acme,globex")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayQueueMonitor monitor = context.getBean(DelayQueueMonitor.class);
				monitor.handled("tenants", "acme", DelayQueueMonitor.Outcome.SUCCESS, 1_000, null, false);
				monitor.handled("tenants", "initech", DelayQueueMonitor.Outcome.SUCCESS, 1_000, null, false);
				monitor.dispatched("orders", null, 5);
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				assertThat(registry.get("delayqueue.messages.delivered").tags("topic", "tenants", "group", "acme")
					.counter().count()).isEqualTo(1);
				assertThat(registry.get("delayqueue.messages.delivered").tags("topic", "tenants", "group", "other")
					.counter().count()).isEqualTo(1);
				assertThat(registry.get("delayqueue.lateness").tags("topic", "orders", "group", "other").timer().count())
					.isEqualTo(1);
			});
	}

	@Test
	void withoutGroupsNamedTheDeliveryMetersHaveNoGroupTag() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			DelayQueueMonitor monitor = context.getBean(DelayQueueMonitor.class);
			monitor.handled("tenants", "acme", DelayQueueMonitor.Outcome.SUCCESS, 1_000, null, false);
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("delayqueue.messages.delivered").tag("topic", "tenants").counter().getId().getTag("group"))
				.isNull();
		});
	}

	@Test
	void aBadOrTooLongListOfMetricsGroupsFailsTheStartNamingTheProperty() {
		StringBuilder many = new StringBuilder();
		for (int i = 0; i <= 100; i++) {
			many.append((i > 0) ? "," : "").append("g-").append(i);
		}
		for (String value : new String[] { "has space", "g".repeat(65), many.toString() }) {
			this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
				.withPropertyValues("delayqueue.topics.tenants.metrics.groups=" + value)
				.run((context) -> {
					assertThat(context).hasFailed();
					assertThat(fullMessage(context.getStartupFailure()))
						.contains("delayqueue.topics.tenants.metrics.groups");
				});
		}
	}

	private static String fullMessage(Throwable failure) {
		StringBuilder message = new StringBuilder();
		for (Throwable t = failure; t != null; t = t.getCause()) {
			message.append(t.getMessage()).append('\n');
		}
		return message.toString();
	}

}
