package io.github.delayqueue.support.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of scheduling a message. Implement it (or extend
 * {@link DefaultDelayQueueScheduleObservationConvention}) and declare it as a bean to change them.
 *
 * @since 0.1.0
 */
public interface DelayQueueScheduleObservationConvention extends ObservationConvention<DelayedMessageSenderContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedMessageSenderContext;
	}

	@Override
	default String getName() {
		return "delayqueue.schedule";
	}

}
