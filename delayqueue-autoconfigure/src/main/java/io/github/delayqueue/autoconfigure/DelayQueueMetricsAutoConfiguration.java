package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueTopicMetrics;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.MeterRegistry;

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
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, DelayedQueue.class })
@ConditionalOnBooleanProperty(name = "delayqueue.metrics.enabled", matchIfMissing = true)
public final class DelayQueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(DelayQueueMonitor.class)
	MicrometerDelayQueueMonitor delayQueueMonitor(MeterRegistry registry) {
		return new MicrometerDelayQueueMonitor(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DelayedQueueAdmin.class)
	DelayQueueTopicMetrics delayQueueTopicMetrics(DelayedQueue queue, DelayedQueueAdmin admin,
			MeterRegistry registry, DelayQueueProperties properties) {
		return new DelayQueueTopicMetrics(queue, admin, registry, properties.getMetrics().getRefreshInterval());
	}

}
