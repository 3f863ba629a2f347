package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicOperations;
import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One admin in a Boot application: the {@link DelayedQueueAdmin} bean is the only one, and the listener containers
 * pause and resume their topics through it.
 */
class OneAdminTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class,
				DelayQueueEndpointAutoConfiguration.class)))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database(),
				"delayqueue.topics.orders.partitions=3");

	@Test
	void theContextHasOneAdminAndTheQueueIsNone() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeansOfType(DelayedQueueAdmin.class)).hasSize(1);
			assertThat(context.getBeansOfType(TopicOperations.class)).as("the queue is not one").hasSize(1);
			DelayedQueueAdmin admin = context.getBean(DelayedQueueAdmin.class);
			assertThat(factory(context).getAdmin()).as("the containers' admin").isSameAs(admin);
			RedisDelayedQueue queue = context.getBean(RedisDelayedQueue.class);
			queue.schedule(ScheduleRequest.builder("orders", "x").id("o-1").delay(Duration.ofMinutes(5)).build());
			assertThat(queue.lookup("orders", "o-1")).map((info) -> info.state()).contains(MessageState.WAITING);
			assertThat(admin.stats("orders").waiting()).isEqualTo(1);
		});
	}

	@Test
	void aContainerPausesEveryPartitionOfItsTopicThroughTheAdminBean() {
		this.runner.run((context) -> {
			DelayedQueueAdmin admin = context.getBean(DelayedQueueAdmin.class);
			RedisMessageStore store = context.getBean(RedisMessageStore.class);
			DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
			DelayedListenerContainer container = registry.registerListenerContainer(
					SimpleDelayedListenerEndpoint.of("orders", String.class, (payload, message) -> {
					}), factory(context), true);
			assertThat(container.getAdmin()).isSameAs(admin);
			context.getBean(DelayedQueue.class).schedule("orders", "x", Duration.ofMinutes(5));

			registry.pauseTopic("orders");
			assertThat(container.isTopicPaused()).isTrue();
			assertThat(admin.controls("orders").paused()).isTrue();
			List<Boolean> paused = List.of(0, 1, 2)
				.stream()
				.map((partition) -> store.controls().read(TopicKeys.partitionName("orders", partition)).paused())
				.toList();
			assertThat(paused).as("every partition").containsExactly(true, true, true);

			container.resumeTopic();
			assertThat(admin.controls("orders").paused()).isFalse();
			assertThat(store.controls().read(TopicKeys.partitionName("orders", 2)).paused()).isFalse();
		});
	}

	@Test
	void aUsersOwnAdminIsTheOneTheContainersUse() {
		this.runner.withUserConfiguration(UserAdmin.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(DelayedQueueAdmin.class);
			assertThat(factory(context).getAdmin()).isSameAs(context.getBean("userAdmin"));
		});
	}

	private static DefaultDelayedListenerContainerFactory factory(ApplicationContext context) {
		return context.getBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
				DefaultDelayedListenerContainerFactory.class);
	}

	@Configuration(proxyBeanMethods = false)
	static class UserAdmin {

		@Bean
		DelayedQueueAdmin userAdmin(RedisMessageStore store, PayloadConverter converter) {
			return new RedisDelayedQueueAdmin(store, converter);
		}

	}

}
