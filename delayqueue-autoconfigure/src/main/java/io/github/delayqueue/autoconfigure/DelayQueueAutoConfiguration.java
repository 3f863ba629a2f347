package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.annotation.DelayedListenerAnnotationBeanPostProcessor;
import io.github.delayqueue.annotation.DelayedListenerConfigurer;
import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.core.RedisReactiveDelayedQueue;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.recurring.RecurringSchedules;
import io.github.delayqueue.recurring.RedisRecurringSchedules;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.RedisDurabilityCheck;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import jakarta.validation.Validator;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnJava;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.system.JavaVersion;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Fallback;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.validation.beanvalidation.SpringValidatorAdapter;

/**
 * Auto-configuration for delayqueue: a {@link DelayedQueue} on the application's Redis, the wake-up timer that wakes
 * listeners, the listener container factory (with its {@link DelayedListenerContainerFactoryConfigurer}) and
 * {@code @DelayedListener} support, with the application's validator for {@code @Valid} payloads; with Reactor and a
 * reactive connection factory (Lettuce's), an {@link AsyncDelayedQueue} and a {@link ReactiveDelayedQueue} too.
 * Payloads are JSON through the application's own Jackson mapper: its Jackson 3 {@code JsonMapper} (Spring Boot 4),
 * else its Jackson 2 {@code ObjectMapper} (Spring Boot 3.5), else a mapper of Jackson's defaults, Jackson 3 where it is
 * on the class path. The same auto-configuration runs on Spring Boot 3.5 and 4. Every bean backs off
 * when the application defines its own; {@code delayqueue.enabled=false} turns all of it off; without a
 * {@link RedisConnectionFactory} nothing is configured.
 *
 * @since 0.1.0
 */
@AutoConfiguration(afterName = {
		// Spring Boot 4
		"org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
		"org.springframework.boot.jackson2.autoconfigure.Jackson2AutoConfiguration",
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration",
		// Spring Boot 3.5
		"org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
		"org.springframework.boot.autoconfigure.jackson.JacksonAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration" })
@ConditionalOnClass(RedisConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "delayqueue.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
@Import({ PayloadConverterConfigurations.ApplicationJsonMapper.class,
		PayloadConverterConfigurations.ApplicationObjectMapper.class,
		PayloadConverterConfigurations.DefaultJsonMapper.class,
		PayloadConverterConfigurations.DefaultObjectMapper.class })
public final class DelayQueueAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RedisMessageStore delayQueueMessageStore(RedisConnectionFactory connectionFactory, DelayQueueProperties properties) {
		return new DelayQueuePropertiesMapper(properties).messageStore(connectionFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	TopicPartitioning delayQueueTopicPartitioning(DelayQueueProperties properties) {
		return new DelayQueuePropertiesMapper(properties).topicPartitioning();
	}

	/**
	 * The operators' side on Redis: the application's one {@link DelayedQueueAdmin}, which the endpoint, health,
	 * metrics, a dashboard and the listener containers (pause and resume) use, whatever the application does with its
	 * {@link DelayedQueue}.
	 */
	@Bean
	@ConditionalOnMissingBean(DelayedQueueAdmin.class)
	RedisDelayedQueueAdmin delayedQueueAdmin(RedisMessageStore store, PayloadConverter converter,
			TopicPartitioning partitioning) {
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, converter);
		admin.setPartitioning(partitioning);
		return admin;
	}

	/** Warns at start-up about Redis settings that lose accepted messages (eviction, no append-only file). */
	@Bean
	@ConditionalOnMissingBean
	RedisDurabilityCheck delayQueueRedisDurabilityCheck(RedisConnectionFactory connectionFactory) {
		return new RedisDurabilityCheck(connectionFactory);
	}

	@Bean
	@ConditionalOnMissingBean
	TopicLimitsInitializer delayQueueTopicLimitsInitializer(DelayedQueueAdmin admin, DelayQueueProperties properties) {
		DelayQueuePropertiesMapper mapper = new DelayQueuePropertiesMapper(properties);
		return new TopicLimitsInitializer(admin, mapper.topicLimits(), mapper.groupCaps(), mapper.groupWeights(),
				mapper.priorityModes());
	}

	@Bean
	@ConditionalOnMissingBean
	SubscriptionsInitializer delayQueueSubscriptionsInitializer(DelayedQueueAdmin admin,
			DelayQueueProperties properties) {
		return new SubscriptionsInitializer(admin, new DelayQueuePropertiesMapper(properties).subscriptions());
	}

	/**
	 * The queue on Redis: the {@link DelayedQueue} the application injects, unless it declares its own (a wrapper,
	 * say: this one is only the fallback candidate for {@code DelayedQueue} then).
	 */
	@Bean
	@Fallback
	@ConditionalOnMissingBean(RedisDelayedQueue.class)
	RedisDelayedQueue delayedQueue(RedisMessageStore store, PayloadConverter converter, TopicPartitioning partitioning,
			DelayQueueProperties properties, ObjectProvider<DelayQueueMonitor> monitor,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayQueueScheduleObservationConvention> observationConvention,
			ObjectProvider<RedisDelayedQueueCustomizer> customizers) {
		RedisDelayedQueue queue = new DelayQueuePropertiesMapper(properties).delayedQueue(store, converter);
		queue.setPartitioning(partitioning);
		monitor.ifUnique(queue::setMonitor);
		if (properties.getObservation().isEnabled()) {
			observationRegistry.ifUnique(queue::setObservationRegistry);
			queue.setObservationConvention(observationConvention.getIfUnique());
		}
		customizers.orderedStream().forEach((customizer) -> customizer.customize(queue));
		return queue;
	}

	@Bean
	@ConditionalOnMissingBean
	RecurringStore delayQueueRecurringStore(RedisMessageStore store) {
		return new RecurringStore(store);
	}

	/**
	 * The recurring schedules, whose ticks the application's {@link RedisDelayedQueue} writes (with its payload
	 * limit, metrics and observation), or a queue of their own if there is no single one. The ticker runs on the
	 * application's {@link TaskScheduler} if it has exactly one (Boot's, with {@code @EnableScheduling}), else on
	 * a scheduler of its own.
	 */
	@Bean
	@ConditionalOnMissingBean(RecurringSchedules.class)
	RedisRecurringSchedules delayQueueRecurringSchedules(RecurringStore recurringStore, RedisMessageStore store,
			ObjectProvider<RedisDelayedQueue> queue, PayloadConverter converter, TopicPartitioning partitioning,
			DelayQueueProperties properties, ObjectProvider<TaskScheduler> taskScheduler) {
		RedisDelayedQueue ticks = queue.getIfUnique(() -> new DelayQueuePropertiesMapper(properties)
			.delayedQueue(store, converter));
		RedisRecurringSchedules schedules = new DelayQueuePropertiesMapper(properties)
			.recurringSchedules(recurringStore, ticks, converter);
		schedules.setPartitioning(partitioning);
		schedules.setTaskScheduler(taskScheduler.getIfUnique());
		return schedules;
	}

	@Bean
	@ConditionalOnMissingBean
	WakeUpTimer delayQueueScheduler(RedisConnectionFactory connectionFactory,
			DelayQueueProperties properties) {
		return new DelayQueuePropertiesMapper(properties).wakeUpTimer(connectionFactory);
	}

	/**
	 * Handlers on virtual threads where the application runs on them ({@code spring.threads.virtual.enabled} on Java
	 * 21+, as Boot's {@code Threading.VIRTUAL} on every line); declared before the platform-thread configurer, which
	 * backs off when this one is there.
	 */
	@Bean(name = "delayedListenerContainerFactoryConfigurer")
	@ConditionalOnMissingBean
	@ConditionalOnJava(JavaVersion.TWENTY_ONE)
	@ConditionalOnBooleanProperty("spring.threads.virtual.enabled")
	DelayedListenerContainerFactoryConfigurer delayedListenerContainerFactoryConfigurerVirtualThreads(
			DelayQueueProperties properties, ObjectProvider<DelayQueueMonitor> monitor,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayQueueListenerObservationConvention> observationConvention,
			ObjectProvider<DeliveryErrorHandler> errorHandler, ObjectProvider<TaskDecorator> taskDecorator,
			TopicPartitioning partitioning, ObjectProvider<DelayedQueueAdmin> admin) {
		DelayedListenerContainerFactoryConfigurer configurer = configurer(properties, monitor, observationRegistry,
				observationConvention, errorHandler, taskDecorator, partitioning, admin);
		SimpleAsyncTaskExecutor virtualThreads = new SimpleAsyncTaskExecutor("delayqueue-");
		virtualThreads.setVirtualThreads(true);
		configurer.setTaskExecutor(virtualThreads);
		return configurer;
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedListenerContainerFactoryConfigurer delayedListenerContainerFactoryConfigurer(
			DelayQueueProperties properties, ObjectProvider<DelayQueueMonitor> monitor,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayQueueListenerObservationConvention> observationConvention,
			ObjectProvider<DeliveryErrorHandler> errorHandler, ObjectProvider<TaskDecorator> taskDecorator,
			TopicPartitioning partitioning, ObjectProvider<DelayedQueueAdmin> admin) {
		return configurer(properties, monitor, observationRegistry, observationConvention, errorHandler,
				taskDecorator, partitioning, admin);
	}

	private static DelayedListenerContainerFactoryConfigurer configurer(DelayQueueProperties properties,
			ObjectProvider<DelayQueueMonitor> monitor, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayQueueListenerObservationConvention> observationConvention,
			ObjectProvider<DeliveryErrorHandler> errorHandler, ObjectProvider<TaskDecorator> taskDecorator,
			TopicPartitioning partitioning, ObjectProvider<DelayedQueueAdmin> admin) {
		DelayedListenerContainerFactoryConfigurer configurer = new DelayedListenerContainerFactoryConfigurer(
				properties);
		configurer.setPartitioning(partitioning);
		// the application's one admin: containers pause and resume their topics through it
		configurer.setAdmin(admin.getIfUnique());
		configurer.setMonitor(monitor.getIfUnique());
		configurer.setObservationRegistry(observationRegistry.getIfUnique());
		configurer.setObservationConvention(observationConvention.getIfUnique());
		configurer.setErrorHandler(errorHandler.getIfUnique());
		configurer.setTaskDecorator(taskDecorator.getIfUnique());
		return configurer;
	}

	@Bean(name = DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	@ConditionalOnMissingBean(name = DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	DefaultDelayedListenerContainerFactory delayedListenerContainerFactory(
			DelayedListenerContainerFactoryConfigurer configurer, RedisMessageStore store, PayloadConverter converter,
			WakeUpTimer wakeUpTimer, ObjectProvider<DelayedListenerContainerFactoryCustomizer> customizers) {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store, converter,
				wakeUpTimer);
		configurer.configure(factory);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(factory));
		return factory;
	}

	/**
	 * Scheduling without blocking: the queue's {@link AsyncDelayedQueue} view and a {@link ReactiveDelayedQueue}, when
	 * Reactor is on the class path and the application's Redis connection factory is also a
	 * {@link ReactiveRedisConnectionFactory} (Lettuce's, Spring Boot's default; Jedis has none).
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Mono.class, ReactiveRedisConnectionFactory.class })
	@ConditionalOnBean(ReactiveRedisConnectionFactory.class)
	static class NonBlockingConfiguration {

		@Bean
		@ConditionalOnMissingBean(AsyncDelayedQueue.class)
		AsyncDelayedQueue asyncDelayedQueue(RedisDelayedQueue queue) {
			return queue.async();
		}

		@Bean
		@ConditionalOnMissingBean(ReactiveDelayedQueue.class)
		RedisReactiveDelayedQueue reactiveDelayedQueue(RedisDelayedQueue queue) {
			return new RedisReactiveDelayedQueue(queue);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "jakarta.validation.Validator")
	static class ListenerValidationConfiguration {

		/** {@code @Valid} payloads of {@code @DelayedListener} methods are checked by the application's validator. */
		@Bean
		DelayedListenerConfigurer delayQueueListenerValidation(ObjectProvider<Validator> validator) {
			return (registrar) -> {
				Validator unique = validator.getIfUnique();
				if (unique != null && registrar.getValidator() == null) {
					registrar.setValidator((unique instanceof org.springframework.validation.Validator springValidator)
							? springValidator : new SpringValidatorAdapter(unique));
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MessageHandlerMethodFactory.class)
	@ConditionalOnMissingBean(name = DelayedListenerAnnotationBeanPostProcessor.BEAN_NAME)
	@EnableDelayedListeners
	static class EnableDelayedListenersConfiguration {

	}

}
