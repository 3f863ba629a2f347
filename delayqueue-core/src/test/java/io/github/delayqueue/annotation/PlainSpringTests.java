package io.github.delayqueue.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedis;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.InvocableHandlerMethod;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
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

	@Test
	void aConfigurerSuppliesTheContainerFactoryAndTheMethodFactory() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(CoreBeans.class, ConfiguredByConfigurer.class, OrderListener.class);
			context.refresh();

			DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
			assertThat(registry.getListenerContainer("order-timeout").getContainerProperties().getShutdownTimeout())
				.isEqualTo(Duration.ofSeconds(3));
			assertThat(context.getBean(ConfiguredByConfigurer.class).methodFactoryUsed).isTrue();
			context.getBean(DelayedQueue.class).schedule("order-timeout", new OrderTimeout("o-2"), Duration.ZERO);
			OrderListener listener = context.getBean(OrderListener.class);
			await().atMost(Duration.ofSeconds(20)).until(() -> listener.received.size() == 1);
		}
	}

	@Test
	void withoutAContainerFactoryStartupFailsSayingWhatIsMissing() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(CoreBeans.class, ListenersOnly.class, OrderListener.class);
			assertThatExceptionOfType(BeanInitializationException.class).isThrownBy(context::refresh)
				.withMessageContaining("OrderListener.onTimeout")
				.withMessageContaining("no DelayedListenerContainerFactory bean named 'delayedListenerContainerFactory'");
		}
	}

	record OrderTimeout(String orderId) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedListeners
	static class ListenersOnly {

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedListeners
	static class ConfiguredByConfigurer implements DelayedListenerConfigurer {

		private final DefaultDelayedListenerContainerFactory factory;

		volatile boolean methodFactoryUsed;

		ConfiguredByConfigurer(RedisMessageStore store, PayloadConverter converter, WakeUpTimer scheduler) {
			this.factory = new DefaultDelayedListenerContainerFactory(store, converter, scheduler);
			this.factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(3));
		}

		@Override
		public void configureDelayedListeners(DelayedListenerEndpointRegistrar registrar) {
			registrar.setContainerFactory(this.factory);
			DefaultMessageHandlerMethodFactory methods = new DefaultMessageHandlerMethodFactory() {

				@Override
				public InvocableHandlerMethod createInvocableHandlerMethod(Object bean, Method method) {
					ConfiguredByConfigurer.this.methodFactoryUsed = true;
					return super.createInvocableHandlerMethod(bean, method);
				}

			};
			methods.afterPropertiesSet();
			registrar.setMessageHandlerMethodFactory(methods);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CoreBeans {

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
			return PayloadConverter.json();
		}

		@Bean
		RedisDelayedQueue delayedQueue(RedisMessageStore store, PayloadConverter converter) {
			return new RedisDelayedQueue(store, converter);
		}

		@Bean
		WakeUpTimer delayedMessageScheduler(LettuceConnectionFactory connectionFactory) {
			return new WakeUpTimer(connectionFactory);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayedListeners
	@Import(CoreBeans.class)
	static class DelayQueueConfiguration {

		@Bean
		DefaultDelayedListenerContainerFactory delayedListenerContainerFactory(RedisMessageStore store,
				PayloadConverter converter, WakeUpTimer scheduler) {
			return new DefaultDelayedListenerContainerFactory(store, converter, scheduler);
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
