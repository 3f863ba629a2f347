package io.github.delayqueue.autoconfigure;

import java.util.concurrent.Executor;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.listener.ContainerProperties;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskDecorator;

/**
 * Applies Spring Boot's settings to a {@link DefaultDelayedListenerContainerFactory}: the
 * {@code delayqueue.listener.*} properties as default options, shutdown timeout and auto-startup, the topics'
 * partition counts ({@code delayqueue.topics.*.partitions}), the application's {@link DelayedQueueAdmin} (through which
 * containers pause and resume their topics), and the application's {@link DeliveryErrorHandler}, {@link TaskDecorator}, metrics, observation and (with
 * {@code spring.threads.virtual.enabled}) virtual-thread executor. Use it to build a second factory with Boot's
 * defaults and change one setting:
 *
 * <pre class="code">
 * &#64;Bean
 * DefaultDelayedListenerContainerFactory slowListenerFactory(DelayedListenerContainerFactoryConfigurer configurer,
 *         RedisMessageStore store, PayloadConverter converter, WakeUpTimer wakeUpTimer) {
 *     DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store, converter,
 *         wakeUpTimer);
 *     configurer.configure(factory);
 *     factory.getContainerProperties().setShutdownTimeout(Duration.ofMinutes(1));
 *     return factory;
 * }
 * </pre>
 *
 * @since 0.2.0
 */
public class DelayedListenerContainerFactoryConfigurer {

	private final DelayQueueProperties properties;

	private @Nullable DelayQueueMonitor monitor;

	private @Nullable ObservationRegistry observationRegistry;

	private @Nullable DelayQueueListenerObservationConvention observationConvention;

	private @Nullable DeliveryErrorHandler errorHandler;

	private @Nullable Executor taskExecutor;

	private @Nullable TaskDecorator taskDecorator;

	private TopicPartitioning partitioning = TopicPartitioning.NONE;

	private @Nullable DelayedQueueAdmin admin;

	/**
	 * Creates a configurer.
	 * @param properties the {@code delayqueue.*} properties
	 */
	public DelayedListenerContainerFactoryConfigurer(DelayQueueProperties properties) {
		this.properties = properties;
	}

	void setMonitor(@Nullable DelayQueueMonitor monitor) {
		this.monitor = monitor;
	}

	void setObservationRegistry(@Nullable ObservationRegistry observationRegistry) {
		this.observationRegistry = observationRegistry;
	}

	void setObservationConvention(@Nullable DelayQueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	void setErrorHandler(@Nullable DeliveryErrorHandler errorHandler) {
		this.errorHandler = errorHandler;
	}

	void setTaskExecutor(@Nullable Executor taskExecutor) {
		this.taskExecutor = taskExecutor;
	}

	void setPartitioning(TopicPartitioning partitioning) {
		this.partitioning = partitioning;
	}

	void setAdmin(@Nullable DelayedQueueAdmin admin) {
		this.admin = admin;
	}

	void setTaskDecorator(@Nullable TaskDecorator taskDecorator) {
		this.taskDecorator = taskDecorator;
	}

	/**
	 * Applies Boot's settings to a factory.
	 * @param factory the factory
	 */
	public void configure(DefaultDelayedListenerContainerFactory factory) {
		DelayQueuePropertiesMapper mapper = new DelayQueuePropertiesMapper(this.properties);
		ListenerOptions defaults = mapper.listenerOptions();
		factory.setDefaultOptions(
				(this.errorHandler != null) ? defaults.toBuilder().errorHandler(this.errorHandler).build() : defaults);
		factory.setPartitioning(this.partitioning);
		if (this.admin != null) {
			factory.setAdmin(this.admin);
		}
		ContainerProperties containerProperties = factory.getContainerProperties();
		containerProperties.setShutdownTimeout(mapper.shutdownTimeout());
		containerProperties.setAutoStartup(this.properties.getListener().isAutoStartup());
		containerProperties.setTaskExecutor(this.taskExecutor);
		containerProperties.setTaskDecorator(this.taskDecorator);
		if (this.monitor != null) {
			containerProperties.setMonitor(this.monitor);
		}
		if (this.properties.getObservation().isEnabled()) {
			if (this.observationRegistry != null) {
				containerProperties.setObservationRegistry(this.observationRegistry);
			}
			containerProperties.setObservationConvention(this.observationConvention);
		}
	}

}
