package io.github.delayqueue.docs.listeners;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.autoconfigure.DelayedListenerContainerFactoryConfigurer;
import io.github.delayqueue.autoconfigure.DelayedListenerContainerFactoryCustomizer;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.docs.model.AuditEntry;
import io.github.delayqueue.docs.model.Notifications;
import io.github.delayqueue.docs.model.OrderBook;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.docs.model.Reminder;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;

import reactor.core.publisher.Mono;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The listeners page's snippets. */
class ListenerSnippets {

	private final DelayedListenerEndpointRegistry registry;

	private final DelayedListenerContainerFactory containerFactory;

	private final OrderBook orders;

	private final Notifications notifications;

	ListenerSnippets(DelayedListenerEndpointRegistry registry, DelayedListenerContainerFactory containerFactory,
			OrderBook orders, Notifications notifications) {
		this.registry = registry;
		this.containerFactory = containerFactory;
		this.orders = orders;
		this.notifications = notifications;
	}

	// tag::async[]
	@DelayedListener(topic = "order-timeout", asyncConcurrency = "500")
	CompletableFuture<Void> onTimeout(OrderTimeout timeout) {
		// the lease is held until the future completes: completing acknowledges, failing retries
		return orders.cancelIfUnpaidAsync(timeout.orderId());
	}

	@DelayedListener(topic = "reminder")
	Mono<Void> onReminder(Reminder reminder) {
		return notifications.remind(reminder);   // Mono<Void> completes empty: acked
	}
	// end::async[]

	// tag::audit[]
	@DelayedListener(id = "audit", topic = "audit-log", autoStartup = "false", containerFactory = "slowFactory")
	void onAudit(AuditEntry entry) {
		// ...
	}
	// end::audit[]

	void registry() {
		// tag::registry[]
		registry.getListenerContainer("audit").start();              // or getListenerContainerForTopic("audit-log")
		registry.getListenerStates();       // id, topic, running, concurrency, in flight, batch size, prefetched
		// end::registry[]
	}

	void inCode() {
		// tag::endpoint[]
		// a listener written in code: the factory's defaults (Boot's properties, error handler) apply
		SimpleDelayedListenerEndpoint<OrderTimeout> endpoint = SimpleDelayedListenerEndpoint.of("order-timeout",
				OrderTimeout.class, (timeout, message) -> orders.cancelIfUnpaid(timeout.orderId()));
		endpoint.setConcurrency(8);
		registry.registerListenerContainer(endpoint, containerFactory, true);   // true: start now if the registry runs
		// end::endpoint[]
	}

	@Configuration(proxyBeanMethods = false)
	static class SecondFactory {

		// tag::second-factory[]
		// a second factory: Boot's settings, one changed
		@Bean
		DefaultDelayedListenerContainerFactory slowFactory(DelayedListenerContainerFactoryConfigurer configurer,
				RedisMessageStore store, PayloadConverter converter, WakeUpTimer wakeUpTimer) {
			DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store,
					converter, wakeUpTimer);
			configurer.configure(factory);
			factory.getContainerProperties().setShutdownTimeout(Duration.ofMinutes(1));
			return factory;
		}
		// end::second-factory[]

	}

	@Configuration(proxyBeanMethods = false)
	static class Customizer {

		// tag::customizer[]
		@Bean
		DelayedListenerContainerFactoryCustomizer slowShutdown() {
			return (factory) -> factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(30));
		}
		// end::customizer[]

	}

}
