package io.github.delayqueue.autoconfigure;

import java.util.Map;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.dao.DataAccessException;

/**
 * Applies the rate limits and concurrency caps that {@code delayqueue.topics.<topic>.*} declares to Redis once the
 * application's beans exist, so that every instance's claims follow them. Topics that declare none keep what Redis
 * has (set through {@link DelayedQueueAdmin} or the actuator endpoint).
 */
class TopicLimitsInitializer implements SmartInitializingSingleton {

	private static final Logger logger = LoggerFactory.getLogger(TopicLimitsInitializer.class);

	private final DelayedQueueAdmin admin;

	private final Map<String, TopicLimits> limits;

	TopicLimitsInitializer(DelayedQueueAdmin admin, Map<String, TopicLimits> limits) {
		this.admin = admin;
		this.limits = Map.copyOf(limits);
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
	}

}
