package io.github.delayqueue.autoconfigure.health;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.actuate.DelayQueueHealth;
import io.github.delayqueue.actuate.health.DelayQueueHealthIndicator;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code delayqueue} health indicator ({@code management.health.delayqueue.enabled}) on
 * Spring Boot 4, whose health support is the {@code spring-boot-health} module.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass({ AbstractHealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(DelayedQueueAdmin.class)
@ConditionalOnEnabledHealthIndicator("delayqueue")
public final class DelayQueueHealthContributorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "delayqueueHealthIndicator")
	DelayQueueHealthIndicator delayqueueHealthIndicator(DelayedQueueAdmin admin,
			ObjectProvider<WakeUpTimer> wakeUpTimer, ObjectProvider<DelayedListenerEndpointRegistry> registry) {
		return new DelayQueueHealthIndicator(
				new DelayQueueHealth(admin, wakeUpTimer.getIfUnique(), registry.getIfUnique()));
	}

}
