package io.github.delayqueue.autoconfigure;

import java.util.Map;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessagePriorities;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

/**
 * Applies the rate limits, concurrency caps, group weights and priority modes that {@code delayqueue.topics.<topic>.*}
 * declares to Redis once the application's beans exist, so that every instance's claims follow them. Topics that declare none keep what Redis
 * has (set through {@link DelayedQueueAdmin} or the actuator endpoint).
 */
class TopicLimitsInitializer implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(TopicLimitsInitializer.class);

	private final DelayedQueueAdmin admin;

	private final Map<String, TopicLimits> limits;

	private final Map<String, GroupCaps> groupCaps;

	private final Map<String, Map<String, Integer>> groupWeights;

	private final Map<String, MessagePriorities.PriorityMode> priorityModes;

	TopicLimitsInitializer(DelayedQueueAdmin admin, Map<String, TopicLimits> limits) {
		this(admin, limits, Map.of());
	}

	TopicLimitsInitializer(DelayedQueueAdmin admin, Map<String, TopicLimits> limits, Map<String, GroupCaps> groupCaps) {
		this(admin, limits, groupCaps, Map.of());
	}

	TopicLimitsInitializer(DelayedQueueAdmin admin, Map<String, TopicLimits> limits, Map<String, GroupCaps> groupCaps,
			Map<String, Map<String, Integer>> groupWeights) {
		this(admin, limits, groupCaps, groupWeights, Map.of());
	}

	TopicLimitsInitializer(DelayedQueueAdmin admin, Map<String, TopicLimits> limits, Map<String, GroupCaps> groupCaps,
			Map<String, Map<String, Integer>> groupWeights, Map<String, MessagePriorities.PriorityMode> priorityModes) {
		this.admin = admin;
		this.limits = Map.copyOf(limits);
		this.groupCaps = Map.copyOf(groupCaps);
		this.groupWeights = Map.copyOf(groupWeights);
		this.priorityModes = Map.copyOf(priorityModes);
	}

	/** A group rate limit as the properties declare it: none, or positive. */
	static @Nullable Double checkRate(@Nullable Double rate) {
		if (rate != null && !(rate > 0 && Double.isFinite(rate))) {
			throw new IllegalArgumentException("must be positive (pause the group to stop its deliveries)");
		}
		return rate;
	}

	/** A group cap as the properties declare it: none, or at least 1. */
	static @Nullable Integer checkCap(@Nullable Integer cap) {
		if (cap != null && cap < 1) {
			throw new IllegalArgumentException("must be at least 1 (pause the group to stop its deliveries)");
		}
		return cap;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.limits.forEach((topic, topicLimits) -> {
			try {
				if (this.admin instanceof RedisDelayedQueueAdmin redisAdmin) {
					// declared in the properties: known, even before anything is scheduled to it
					redisAdmin.registerTopics(java.util.List.of(topic));
				}
				this.admin.setLimits(topic, topicLimits);
				logger.info("Topic '{}': limits {} applied on every instance", topic, topicLimits);
			}
			catch (DataAccessException ex) {
				logger.error("Topic '{}': the limits {} that the properties declare could not be applied (Redis did "
						+ "not answer); the topic keeps the limits Redis has until they are applied (restart, or the "
						+ "actuator endpoint)", topic, topicLimits, ex);
			}
		});
		this.groupCaps.forEach((topic, caps) -> {
			try {
				if (this.admin instanceof RedisDelayedQueueAdmin redisAdmin) {
					redisAdmin.registerTopics(java.util.List.of(topic));
				}
				if (caps.defaultCap() != null) {
					this.admin.setGroupCap(topic, null, caps.defaultCap());
				}
				caps.caps().forEach((group, cap) -> this.admin.setGroupCap(topic, group, cap));
				if (caps.defaultRate() != null) {
					this.admin.setGroupRate(topic, null, caps.defaultRate());
				}
				caps.rates().forEach((group, rate) -> this.admin.setGroupRate(topic, group, rate));
				logger.info("Topic '{}': group caps and rate limits {} applied on every instance", topic, caps);
			}
			catch (DataAccessException ex) {
				logger.error("Topic '{}': the group caps {} that the properties declare could not be applied (Redis "
						+ "did not answer); the groups keep the caps Redis has until they are applied", topic, caps, ex);
			}
		});
		this.groupWeights.forEach((topic, weights) -> {
			try {
				if (this.admin instanceof RedisDelayedQueueAdmin redisAdmin) {
					redisAdmin.registerTopics(java.util.List.of(topic));
				}
				weights.forEach((group, weight) -> this.admin.setGroupWeight(topic, group, weight));
				logger.info("Topic '{}': group weights {} applied on every instance", topic, weights);
			}
			catch (DataAccessException ex) {
				logger.error("Topic '{}': the group weights {} that the properties declare could not be applied "
						+ "(Redis did not answer); the groups keep the weights Redis has until they are applied", topic,
						weights, ex);
			}
		});
		this.priorityModes.forEach((topic, mode) -> {
			try {
				if (this.admin instanceof RedisDelayedQueueAdmin redisAdmin) {
					redisAdmin.registerTopics(java.util.List.of(topic));
				}
				this.admin.setPriorityMode(topic, mode);
				logger.info("Topic '{}': priority mode {} applied on every instance", topic, mode);
			}
			catch (DataAccessException ex) {
				logger.error("Topic '{}': the priority mode {} that the properties declare could not be applied (Redis "
						+ "did not answer); the topic keeps the mode Redis has until it is applied", topic, mode, ex);
			}
		});
	}

	/**
	 * The group caps and rate limits a topic's properties declare.
	 * @param defaultCap the default cap of every group of the topic, or {@code null} to leave it as Redis keeps it
	 * @param caps the caps of single groups, by group key
	 * @param defaultRate the default rate limit of every group, or {@code null} to leave it as Redis keeps it
	 * @param rates the rate limits of single groups, by group key
	 */
	record GroupCaps(@Nullable Integer defaultCap, Map<String, Integer> caps, @Nullable Double defaultRate,
			Map<String, Double> rates) {

		GroupCaps(@Nullable Integer defaultCap, Map<String, Integer> caps) {
			this(defaultCap, caps, null, Map.of());
		}

	}

}
