package io.github.delayqueue.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.test.TestRedis;
import io.github.delayqueue.test.TestRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * delayqueue in a plain Spring application, without Spring Boot: {@code @EnableDelayedListeners} and a few beans.
 */
class PlainSpringTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	@Test
	void anAnnotatedListenerReceivesAScheduledMessage() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(DelayQueueConfiguration.class, OrderListener.class);
			context.refresh();

			String id = context.getBean(DelayedQueue.class).schedule("order-timeout", new OrderTimeout("o-1"),
					Duration.ofMillis(100));

			OrderListener listener = context.getBean(OrderListener.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> listener.received.size() == 1);
			assertThat(listener.received).containsExactly("o-1 " + id + " attempt 1");
		}
		assertThat(RedisFixture.keysOf(redis.get(), "order-timeout")).isEmpty();
	}

	record OrderTimeout(String orderId) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedListeners
	static class DelayQueueConfiguration {

		@Bean(destroyMethod = "destroy")
		LettuceConnectionFactory redisConnectionFactory() {
			TestRedis server = redis.get();
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
			configuration.setDatabase(server.database());
			return new LettuceConnectionFactory(configuration);
		}

		@Bean
		RedisMessageStore redisMessageStore(LettuceConnectionFactory connectionFactory) {
			return new RedisMessageStore(connectionFactory, RedisFixture.PREFIX, DeadLetterPolicy.DEFAULT);
		}

		@Bean
		PayloadConverter payloadConverter() {
			return new JacksonPayloadConverter();
		}

		@Bean
		RedisDelayedQueue delayedQueue(RedisMessageStore store, PayloadConverter converter) {
			return new RedisDelayedQueue(store, converter);
		}

		@Bean
		DelayedMessageScheduler delayedMessageScheduler(LettuceConnectionFactory connectionFactory) {
			return new DelayedMessageScheduler(connectionFactory);
		}

		@Bean
		DelayedListenerContainer delayedListenerContainer(RedisMessageStore store, PayloadConverter converter,
				DelayedMessageScheduler scheduler) {
			return new DelayedListenerContainer(store, converter, scheduler);
		}

	}

	static class OrderListener {

		final List<String> received = new CopyOnWriteArrayList<>();

		@DelayedListener(topic = "order-timeout")
		void onTimeout(OrderTimeout timeout, DeliveredMessage message) {
			this.received.add(timeout.orderId() + " " + message.id() + " attempt " + message.attempt());
		}

	}

}
