package io.github.delayqueue.autoconfigure;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.annotation.DelayedListenerAnnotationBeanPostProcessor;
import io.github.delayqueue.annotation.EnableDelayedListeners;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DeadLetterPolicy;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.github.delayqueue.support.micrometer.DelayQueueScheduleObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

/**
 * Auto-configuration for delayqueue: a {@link DelayedQueue} on the application's Redis, the scheduler and the
 * listener container that consume topics, and the {@code @DelayedListener} post-processor. Every bean backs off
 * when the application defines its own; {@code delayqueue.enabled=false} turns all of it off; without a
 * {@link RedisConnectionFactory} nothing is configured.
 */
@AutoConfiguration(afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
		"org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
		"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass({ RedisConnectionFactory.class, JsonMapper.class })
@ConditionalOnBooleanProperty(name = "delayqueue.enabled", matchIfMissing = true)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	PayloadConverter delayQueuePayloadConverter(ObjectProvider<JsonMapper> jsonMapper) {
		return new JacksonPayloadConverter(jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()));
	}

	@Bean
	@ConditionalOnMissingBean
	RedisMessageStore delayQueueMessageStore(RedisConnectionFactory connectionFactory, DelayQueueProperties properties) {
		DelayQueueProperties.DeadLetter deadLetter = properties.getDeadLetter();
		return new RedisMessageStore(connectionFactory, properties.getKeyPrefix(),
				new DeadLetterPolicy(deadLetter.getMaxCount(), deadLetter.getMaxAge()));
	}

	@Bean
	@ConditionalOnMissingBean(DelayedQueue.class)
	RedisDelayedQueue delayedQueue(RedisMessageStore store, PayloadConverter converter,
			DelayQueueProperties properties, ObjectProvider<DelayQueueMonitor> monitor,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayQueueScheduleObservationConvention> observationConvention) {
		RedisDelayedQueue queue = new RedisDelayedQueue(store, converter, properties.getMaxPayloadSize());
		monitor.ifUnique(queue::setMonitor);
		if (properties.getObservation().isEnabled()) {
			observationRegistry.ifUnique(queue::setObservationRegistry);
			queue.setObservationConvention(observationConvention.getIfUnique());
		}
		return queue;
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedMessageScheduler delayQueueScheduler(RedisConnectionFactory connectionFactory,
			DelayQueueProperties properties) {
		DelayQueueProperties.Scheduler scheduler = properties.getScheduler();
		DelayedMessageScheduler bean = new DelayedMessageScheduler(connectionFactory, scheduler.getTick(),
				scheduler.getPollInterval());
		bean.setAutoStartup(scheduler.isAutoStartup());
		return bean;
	}

	@Bean
	@ConditionalOnMissingBean
	DelayedListenerContainer delayedListenerContainer(RedisMessageStore store, PayloadConverter converter,
			DelayedMessageScheduler scheduler, DelayQueueProperties properties,
			ObjectProvider<DelayQueueMonitor> monitor, ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<DelayQueueListenerObservationConvention> observationConvention,
			ObjectProvider<DeliveryErrorHandler> errorHandler, ObjectProvider<TaskDecorator> taskDecorator,
			Environment environment) {
		DelayedListenerContainer container = new DelayedListenerContainer(store, converter, scheduler);
		if (Threading.VIRTUAL.isActive(environment)) {
			SimpleAsyncTaskExecutor virtualThreads = new SimpleAsyncTaskExecutor("delayqueue-");
			virtualThreads.setVirtualThreads(true);
			container.setTaskExecutor(virtualThreads);
		}
		container.setTaskDecorator(taskDecorator.getIfUnique());
		monitor.ifUnique(container::setMonitor);
		if (properties.getObservation().isEnabled()) {
			observationRegistry.ifUnique(container::setObservationRegistry);
			container.setObservationConvention(observationConvention.getIfUnique());
		}
		DelayQueueProperties.Listener listener = properties.getListener();
		ListenerOptions defaults = defaultListenerOptions(properties);
		DeliveryErrorHandler uniqueErrorHandler = errorHandler.getIfUnique();
		container.setDefaultOptions((uniqueErrorHandler != null)
				? defaults.toBuilder().errorHandler(uniqueErrorHandler).build() : defaults);
		container.setShutdownTimeout(listener.getShutdownTimeout());
		container.setAutoStartup(listener.isAutoStartup());
		return container;
	}

	/** The listener setting; else the one of 0.1's name (deprecated); else the default. */
	@SuppressWarnings("deprecation")
	private static int batchSize(DelayQueueProperties properties) {
		Integer batchSize = properties.getListener().getBatchSize();
		if (batchSize == null) {
			batchSize = properties.getScheduler().getBatchSize();
		}
		return (batchSize != null) ? batchSize : ListenerOptions.DEFAULT_BATCH_SIZE;
	}

	static ListenerOptions defaultListenerOptions(DelayQueueProperties properties) {
		DelayQueueProperties.Listener listener = properties.getListener();
		DelayQueueProperties.Backoff backoff = listener.getBackoff();
		Duration delay = backoff.effectiveDelay();
		Duration maxDelay = backoff.effectiveMaxDelay();
		if (maxDelay.compareTo(delay) < 0) {
			throw new IllegalStateException("delayqueue.listener.backoff.max-delay (" + maxDelay
					+ ") must not be less than delayqueue.listener.backoff.delay (" + delay + ")");
		}
		Duration jitter = backoff.getJitter();
		return ListenerOptions.builder()
			.concurrency(listener.getConcurrency())
			.visibilityTimeout(listener.getVisibilityTimeout())
			.maxAttempts(listener.getMaxAttempts())
			.batchSize(batchSize(properties))
			.backOff(ListenerOptions.exponentialBackOff(delay, backoff.getMultiplier(), maxDelay,
					(jitter != null) ? jitter : delay.dividedBy(4)))
			.build();
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MessageHandlerMethodFactory.class)
	@ConditionalOnMissingBean(name = DelayedListenerAnnotationBeanPostProcessor.BEAN_NAME)
	@EnableDelayedListeners
	static class EnableDelayedListenersConfiguration {

	}

}
