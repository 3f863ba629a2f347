package io.github.delayqueue.docs.withoutboot;

import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import io.github.delayqueue.support.RedisDurabilityCheck;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/** The page "Without Spring Boot": the beans an application declares itself. */
// tag::configuration[]
@Configuration(proxyBeanMethods = false)
@EnableDelayedListeners
class DelayQueueConfiguration {

	@Bean
	RedisMessageStore redisMessageStore(RedisConnectionFactory connectionFactory) {
		return new RedisMessageStore(connectionFactory, "dq", DeadLetterPolicy.DEFAULT);
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
	RedisDelayedQueueAdmin delayedQueueAdmin(RedisMessageStore store, PayloadConverter converter) {
		return new RedisDelayedQueueAdmin(store, converter);
	}

	@Bean
	WakeUpTimer wakeUpTimer(RedisConnectionFactory connectionFactory) {
		return new WakeUpTimer(connectionFactory);
	}

	@Bean   // the name counts: @DelayedListener methods use the factory of this name unless they name another
	DefaultDelayedListenerContainerFactory delayedListenerContainerFactory(RedisMessageStore store,
			PayloadConverter converter, WakeUpTimer wakeUpTimer, RedisDelayedQueueAdmin admin) {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store, converter,
				wakeUpTimer);
		factory.setAdmin(admin);   // containers pause and resume their topics through the one admin
		return factory;
	}

	@Bean   // warns at start-up about Redis settings that lose accepted messages (eviction, no append-only file)
	RedisDurabilityCheck redisDurabilityCheck(RedisConnectionFactory connectionFactory) {
		return new RedisDurabilityCheck(connectionFactory);
	}

}
// end::configuration[]

/** A container without any application context. */
class WithoutAContext {

	static DelayedListenerContainer start(RedisMessageStore store, PayloadConverter converter, WakeUpTimer wakeUpTimer,
			OrderBook orders) {
		// tag::container[]
		DelayedListenerContainer container = new DelayedListenerContainer("order-timeout",
				ListenerRegistration.of("order-timeout", OrderTimeout.class,
						(timeout, message) -> orders.cancelIfUnpaid(timeout.orderId())),
				store, converter, wakeUpTimer);
		wakeUpTimer.start();
		container.start();
		// ... and on the way out: container.stop(); wakeUpTimer.stop();
		// end::container[]
		return container;
	}

}
