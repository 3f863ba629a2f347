package io.github.delayqueue.support.micrometer;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations delayqueue makes: one around each schedule call that stores the current trace context in the
 * message's headers, and one around each handler call that continues that trace, so a trace shows "order created
 * → 30 minutes later → order cancelled".
 *
 * @since 0.1.0
 */
public enum DelayQueueObservation implements ObservationDocumentation {

	/** A handler processing one message. */
	LISTENER {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultDelayQueueListenerObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeys.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return ListenerHighCardinalityKeys.values();
		}

	},

	/** A message being scheduled. */
	SCHEDULE {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultDelayQueueScheduleObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return LowCardinalityKeys.values();
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return ScheduleHighCardinalityKeys.values();
		}

	};

	/** Low-cardinality keys (they become metric tags). */
	public enum LowCardinalityKeys implements KeyName {

		/** Always {@code delayqueue}. */
		MESSAGING_SYSTEM {
			@Override
			public String asString() {
				return "messaging.system";
			}
		},

		/** {@code process} for handlers, {@code publish} for schedule calls. */
		MESSAGING_OPERATION {
			@Override
			public String asString() {
				return "messaging.operation";
			}
		},

		/** The topic. */
		MESSAGING_DESTINATION_NAME {
			@Override
			public String asString() {
				return "messaging.destination.name";
			}
		}

	}

	/** High-cardinality keys of the listener observation (span attributes only). */
	public enum ListenerHighCardinalityKeys implements KeyName {

		/** The message id. */
		MESSAGE_ID {
			@Override
			public String asString() {
				return "messaging.message.id";
			}
		},

		/** The delivery attempt. */
		ATTEMPT {
			@Override
			public String asString() {
				return "delayqueue.attempt";
			}
		}

	}

	/** High-cardinality keys of the schedule observation (span attributes only). */
	public enum ScheduleHighCardinalityKeys implements KeyName {

		/** The message id. */
		MESSAGE_ID {
			@Override
			public String asString() {
				return "messaging.message.id";
			}
		}

	}

}
