package io.github.delayqueue.autoconfigure.health;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.actuate.DelayQueueHealth;
import io.github.delayqueue.actuate.health.DelayQueueHealthIndicator;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code delayqueue} health indicator ({@code management.health.delayqueue.enabled}) on
 * Spring Boot 3.5, whose health support is part of Actuator.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass({ HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnEnabledHealthIndicator("delayqueue")
@ConditionalOnBean(DelayedQueueAdmin.class)
public final class DelayQueueHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "delayqueueHealthIndicator")
	DelayQueueHealthIndicator delayqueueHealthIndicator(ObjectProvider<WakeUpTimer> timer,
			ObjectProvider<DelayedListenerEndpointRegistry> listeners, DelayedQueueAdmin admin) {
		DelayQueueHealth check = new DelayQueueHealth(admin, timer.getIfUnique(), listeners.getIfUnique());
		return new DelayQueueHealthIndicator(check);
	}

}
