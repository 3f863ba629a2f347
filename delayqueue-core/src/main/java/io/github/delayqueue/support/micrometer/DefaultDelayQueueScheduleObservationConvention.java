package io.github.delayqueue.support.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayQueueScheduleObservationConvention}: low-cardinality {@code messaging.system},
 * {@code messaging.operation=publish} and {@code messaging.destination.name} (the topic); high-cardinality message
 * id.
 *
 * @since 0.1.0
 */
public class DefaultDelayQueueScheduleObservationConvention implements DelayQueueScheduleObservationConvention {

	/** The shared instance. */
	public static final DefaultDelayQueueScheduleObservationConvention INSTANCE = new DefaultDelayQueueScheduleObservationConvention();

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayedMessageSenderContext context) {
		return KeyValues.of(DelayQueueObservation.LowCardinalityKeys.MESSAGING_SYSTEM.withValue("delayqueue"),
				DelayQueueObservation.LowCardinalityKeys.MESSAGING_OPERATION.withValue("publish"),
				DelayQueueObservation.LowCardinalityKeys.MESSAGING_DESTINATION_NAME.withValue(context.getTopic()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayedMessageSenderContext context) {
		return KeyValues.of(DelayQueueObservation.ScheduleHighCardinalityKeys.MESSAGE_ID.withValue(context.getMessageId()));
	}

	@Override
	public String getContextualName(DelayedMessageSenderContext context) {
		return context.getTopic() + " publish";
	}

}
