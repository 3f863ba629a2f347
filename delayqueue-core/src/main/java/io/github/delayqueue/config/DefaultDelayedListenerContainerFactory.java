package io.github.delayqueue.config;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.listener.ContainerProperties;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.TopicKeys;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Makes {@link DelayedListenerContainer}s that share its settings: the default options each endpoint starts from,
 * the topics' partitioning, the {@link DelayedQueueAdmin} through which a container pauses and resumes its topic, and
 * the {@link ContainerProperties} (metrics and observation, the handler executor and
 * task decorator, the shutdown timeout and lifecycle) each container gets a copy of. With Spring
 * Boot, {@code DelayedListenerContainerFactoryConfigurer} applies the {@code delayqueue.listener.*} properties and
 * the application's beans to one; use it to build a second factory that differs in one setting.
 *
 * @since 0.2.0
 */
public class DefaultDelayedListenerContainerFactory implements DelayedListenerContainerFactory {

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final WakeUpTimer scheduler;

	private ListenerOptions defaultOptions = ListenerOptions.defaults();

	private TopicPartitioning partitioning = TopicPartitioning.NONE;

	private final ContainerProperties containerProperties = new ContainerProperties();

	private @Nullable DelayedQueueAdmin admin;

	/**
	 * Creates a factory.
	 * @param store the Redis store
	 * @param converter reads payloads
	 * @param scheduler wakes containers when messages fall due
	 */
	public DefaultDelayedListenerContainerFactory(RedisMessageStore store, PayloadConverter converter,
			WakeUpTimer scheduler) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		Assert.notNull(scheduler, "WakeUpTimer must not be null");
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
	 * Sets the admin that each container made afterwards pauses and resumes its topic through (see
	 * {@link DelayedListenerContainer#pauseTopic()}): the application's {@link DelayedQueueAdmin}, so that one object
	 * reaches every partition of a topic. Without one, the containers' topic-wide methods throw.
	 * @param admin the admin, or {@code null}
	 * @since 1.0.0
	 */
	public void setAdmin(@Nullable DelayedQueueAdmin admin) {
		this.admin = admin;
	}

	/**
	 * The admin each container made afterwards gets.
	 * @return the admin, or {@code null}
	 * @since 1.0.0
	 */
	public @Nullable DelayedQueueAdmin getAdmin() {
		return this.admin;
	}

	/**
	 * The template of the containers' properties: metrics, observation, the handler executor and decorator, the
	 * shutdown timeout and the lifecycle. Each container made afterwards gets a copy (an endpoint's own
	 * auto-startup wins).
	 * @return the template, to change
	 */
	public ContainerProperties getContainerProperties() {
		return this.containerProperties;
	}

	@Override
	public DelayedListenerContainer createListenerContainer(DelayedListenerEndpoint endpoint) {
		Assert.notNull(endpoint, "Endpoint must not be null");
		ListenerRegistration<?> registration = endpoint.createRegistration(this.defaultOptions);
		Assert.state(registration.topic().equals(endpoint.getTopic()),
				() -> "Endpoint " + endpoint + " made a registration for another topic: " + registration.topic());
		ContainerProperties properties = new ContainerProperties(this.containerProperties);
		Boolean endpointAutoStartup = endpoint.getAutoStartup();
		if (endpointAutoStartup != null) {
			properties.setAutoStartup(endpointAutoStartup);
		}
		DelayedListenerContainer container = new DelayedListenerContainer(endpoint.getId(), registration, this.store,
				this.converter, this.scheduler, properties);
		// a subscription has its topic's partitions
		container.setPartitions(this.partitioning.partitions(TopicKeys.topicOf(endpoint.getTopic())));
		container.setAdmin(this.admin);
		return container;
	}

}
