package io.github.delayqueue.support.micrometer;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observation of a handler call. Implement it (or extend
 * {@link DefaultDelayQueueListenerObservationConvention}) and declare it as a bean to change them.
 *
 * @since 0.1.0
 */
public interface DelayQueueListenerObservationConvention extends ObservationConvention<DelayedMessageReceiverContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayedMessageReceiverContext;
	}

	@Override
	default String getName() {
		return "delayqueue.listener";
	}

}
