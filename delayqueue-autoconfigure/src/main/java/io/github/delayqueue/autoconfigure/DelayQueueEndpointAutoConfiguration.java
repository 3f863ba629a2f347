package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.recurring.RecurringSchedules;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of the {@code delayqueue} actuator endpoint, when Actuator is present and the endpoint is
 * available (exposed and enabled).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
@ConditionalOnBean(DelayedQueueAdmin.class)
@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
public final class DelayQueueEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	DelayQueueEndpoint delayQueueEndpoint(DelayedQueueAdmin admin,
			ObjectProvider<DelayedListenerEndpointRegistry> registry, ObjectProvider<RecurringSchedules> recurring) {
		DelayQueueEndpoint endpoint = new DelayQueueEndpoint(admin, registry.getIfUnique());
		endpoint.setRecurringSchedules(recurring.getIfUnique());
		return endpoint;
	}

}
