package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueTopicMetrics;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.MeterObservationHandler;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of delayqueue's Micrometer metrics, when a {@link MeterRegistry} bean exists
 * ({@code delayqueue.metrics.enabled}): counters and timers recorded as messages move, and per-topic gauges read
 * in the background.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class, afterName = {
		// Spring Boot 4
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
		// Spring Boot 3.5
		"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, DelayedQueue.class })
@ConditionalOnBooleanProperty(name = "delayqueue.metrics.enabled", matchIfMissing = true)
public final class DelayQueueMetricsAutoConfiguration {

	/**
	 * The monitor; where observations are timed (a meter observation handler exists) it leaves the time of observed
	 * handler calls to the {@code delayqueue.listener} observation, so that handler time is recorded once. The groups
	 * that {@code delayqueue.topics.<topic>.metrics.groups} names get a {@code group} tag of their own.
	 */
	@Bean
	@ConditionalOnMissingBean(DelayQueueMonitor.class)
	MicrometerDelayQueueMonitor delayQueueMonitor(MeterRegistry registry,
			ObjectProvider<MeterObservationHandler<?>> meterObservationHandlers, DelayQueueProperties properties) {
		return new MicrometerDelayQueueMonitor(registry, meterObservationHandlers.stream().findAny().isPresent(),
				new DelayQueuePropertiesMapper(properties).metricsGroups());
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DelayedQueueAdmin.class)
	DelayQueueTopicMetrics delayQueueTopicMetrics(DelayedQueueAdmin admin, MeterRegistry registry,
			DelayQueueProperties properties) {
		return new DelayQueueTopicMetrics(admin, registry,
				new DelayQueuePropertiesMapper(properties).metricsRefreshInterval());
	}

}
