package io.github.delayqueue.dashboard;

/**
 * Reads this application instance's meters of a topic (rates and lateness), when it has a meter registry.
 *
 * @since 1.0.0
 */
@FunctionalInterface
public interface TopicMeterReader {

	/** Reads nothing: for an application without a meter registry. */
	TopicMeterReader NONE = (topic) -> MeterReading.NONE;

	/**
	 * Reads a topic's meters now. Must not call Redis.
	 * @param topic the topic
	 * @return the readings, {@link MeterReading#NONE} if the topic has no meters here
	 */
	MeterReading read(String topic);

}
