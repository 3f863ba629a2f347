package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueTopicMetrics;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.MeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;

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
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class, afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ MeterRegistry.class, DelayedQueue.class })
@ConditionalOnBooleanProperty(name = "delayqueue.metrics.enabled", matchIfMissing = true)
public final class DelayQueueMetricsAutoConfiguration {

	/**
	 * The monitor; it leaves handler time to the {@code delayqueue.listener} observation where that is timed (an
	 * observation registry and a meter observation handler exist, and {@code delayqueue.observation.enabled}), so
	 * that handler time is recorded once.
	 */
	@Bean
	@ConditionalOnMissingBean(DelayQueueMonitor.class)
	MicrometerDelayQueueMonitor delayQueueMonitor(MeterRegistry registry, DelayQueueProperties properties,
			ObjectProvider<ObservationRegistry> observationRegistry,
			ObjectProvider<MeterObservationHandler<?>> meterObservationHandlers) {
		ObservationRegistry observations = observationRegistry.getIfUnique();
		boolean timedByObservation = properties.getObservation().isEnabled() && observations != null
				&& !observations.isNoop() && meterObservationHandlers.stream().findAny().isPresent();
		return new MicrometerDelayQueueMonitor(registry, !timedByObservation);
	}

	@Bean
	@ConditionalOnMissingBean
	@ConditionalOnBean(DelayedQueueAdmin.class)
	DelayQueueTopicMetrics delayQueueTopicMetrics(DelayedQueue queue, DelayedQueueAdmin admin,
			MeterRegistry registry, DelayQueueProperties properties) {
		return new DelayQueueTopicMetrics(queue, admin, registry,
				new DelayQueuePropertiesMapper(properties).metricsRefreshInterval());
	}

}
