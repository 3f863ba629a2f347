package io.github.delayqueue.config;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskDecorator;
import org.springframework.util.Assert;

/**
 * Makes {@link DelayedListenerContainer}s that share its settings: the default options each endpoint starts from,
 * metrics and observation, the handler executor and task decorator, the shutdown timeout and lifecycle. With Spring
 * Boot, {@code DelayedListenerContainerFactoryConfigurer} applies the {@code delayqueue.listener.*} properties and
 * the application's beans to one; use it to build a second factory that differs in one setting.
 */
public class DefaultDelayedListenerContainerFactory implements DelayedListenerContainerFactory {

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final DelayedMessageScheduler scheduler;

	private ListenerOptions defaultOptions = ListenerOptions.defaults();

	private TopicPartitioning partitioning = TopicPartitioning.NONE;

	private DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable DelayQueueListenerObservationConvention observationConvention;

	private @Nullable Executor taskExecutor;

	private @Nullable TaskDecorator taskDecorator;

	private Duration shutdownTimeout = DelayedListenerContainer.DEFAULT_SHUTDOWN_TIMEOUT;

	private boolean autoStartup = true;

	/**
	 * Creates a factory.
	 * @param store the Redis store
	 * @param converter reads payloads
	 * @param scheduler wakes containers when messages fall due
	 */
	public DefaultDelayedListenerContainerFactory(RedisMessageStore store, PayloadConverter converter,
			DelayedMessageScheduler scheduler) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		Assert.notNull(scheduler, "DelayedMessageScheduler must not be null");
		this.store = store;
		this.converter = converter;
		this.scheduler = scheduler;
	}

	/**
	 * Sets the options every endpoint starts from (an endpoint's own settings override them).
	 * @param defaultOptions the options
	 */
	public void setDefaultOptions(ListenerOptions defaultOptions) {
		Assert.notNull(defaultOptions, "Default options must not be null");
		this.defaultOptions = defaultOptions;
	}

	/**
	 * The options every endpoint starts from.
	 * @return the options
	 */
	public ListenerOptions getDefaultOptions() {
		return this.defaultOptions;
	}

	/**
	 * Sets how many partitions each topic has (its producers must use the same); by default one each.
	 * @param partitioning the partitioning
	 */
	public void setPartitioning(TopicPartitioning partitioning) {
		Assert.notNull(partitioning, "TopicPartitioning must not be null");
		this.partitioning = partitioning;
	}

	/**
	 * Sets the monitor told about dispatched and handled messages (for metrics).
	 * @param monitor the monitor
	 */
	public void setMonitor(DelayQueueMonitor monitor) {
		Assert.notNull(monitor, "Monitor must not be null");
		this.monitor = monitor;
	}

	/**
	 * Sets the registry of the observation made around each handler call.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "ObservationRegistry must not be null");
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Sets a convention to name and tag the handler observation, instead of the default.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable DelayQueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Sets the executor that runs handlers, such as a {@code SimpleAsyncTaskExecutor} with virtual threads. Each
	 * container still runs at most its concurrency at once. By default each container has a pool of its own.
	 * @param taskExecutor the executor, or {@code null} for the default
	 */
	public void setTaskExecutor(@Nullable Executor taskExecutor) {
		this.taskExecutor = taskExecutor;
	}

	/**
	 * Sets a decorator that wraps the handling of each message on its handler thread (MDC, security context).
	 * @param taskDecorator the decorator, or {@code null} for none
	 */
	public void setTaskDecorator(@Nullable TaskDecorator taskDecorator) {
		this.taskDecorator = taskDecorator;
	}

	/**
	 * Sets how long running handlers may take to finish on stop before their messages are handed back.
	 * @param shutdownTimeout zero or more
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		Assert.isTrue(shutdownTimeout != null && !shutdownTimeout.isNegative(),
				() -> "Shutdown timeout must not be negative, but was " + shutdownTimeout);
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Sets whether containers start with the application, unless an endpoint says otherwise.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	@Override
	public DelayedListenerContainer createListenerContainer(DelayedListenerEndpoint endpoint) {
		Assert.notNull(endpoint, "Endpoint must not be null");
		ListenerRegistration<?> registration = endpoint.createRegistration(this.defaultOptions);
		Assert.state(registration.topic().equals(endpoint.getTopic()),
				() -> "Endpoint " + endpoint + " made a registration for another topic: " + registration.topic());
		DelayedListenerContainer container = new DelayedListenerContainer(endpoint.getId(), registration, this.store,
				this.converter, this.scheduler);
		container.setMonitor(this.monitor);
		container.setObservationRegistry(this.observationRegistry);
		container.setObservationConvention(this.observationConvention);
		container.setTaskExecutor(this.taskExecutor);
		container.setTaskDecorator(this.taskDecorator);
		container.setShutdownTimeout(this.shutdownTimeout);
		container.setPartitions(this.partitioning.partitions(endpoint.getTopic()));
		Boolean endpointAutoStartup = endpoint.getAutoStartup();
		container.setAutoStartup((endpointAutoStartup != null) ? endpointAutoStartup : this.autoStartup);
		return container;
	}

}
