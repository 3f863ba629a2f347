package io.github.delayqueue.support.micrometer;

import io.micrometer.common.KeyValues;

/**
 * The default {@link DelayQueueListenerObservationConvention}: low-cardinality {@code messaging.system},
 * {@code messaging.operation=process} and {@code messaging.destination.name} (the topic); high-cardinality
 * message id and attempt.
 *
 * @since 0.1.0
 */
public class DefaultDelayQueueListenerObservationConvention implements DelayQueueListenerObservationConvention {

	/** The shared instance. */
	public static final DefaultDelayQueueListenerObservationConvention INSTANCE = new DefaultDelayQueueListenerObservationConvention();

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayedMessageReceiverContext context) {
		return KeyValues.of(DelayQueueObservation.LowCardinalityKeys.MESSAGING_SYSTEM.withValue("delayqueue"),
				DelayQueueObservation.LowCardinalityKeys.MESSAGING_OPERATION.withValue("process"),
				DelayQueueObservation.LowCardinalityKeys.MESSAGING_DESTINATION_NAME.withValue(context.getTopic()));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayedMessageReceiverContext context) {
		return KeyValues.of(DelayQueueObservation.ListenerHighCardinalityKeys.MESSAGE_ID.withValue(context.getMessageId()),
				DelayQueueObservation.ListenerHighCardinalityKeys.ATTEMPT.withValue(Integer.toString(context.getAttempt())));
	}

	@Override
	public String getContextualName(DelayedMessageReceiverContext context) {
		return context.getTopic() + " process";
	}

}
