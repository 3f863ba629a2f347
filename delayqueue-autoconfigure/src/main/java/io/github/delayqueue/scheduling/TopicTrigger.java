package io.github.delayqueue.scheduling;

/**
 * A topic's wake-up: armed for the next due time, fired by the timer, the wake channel, a (re)subscription or
 * the fallback poll. Firing runs the topic's callback, which must only hand work to another thread.
 */
public interface TopicTrigger {

	/**
	 * Arms the trigger to fire after a delay, unless it is already armed to fire no later than that.
	 * @param delayMillis the delay; zero or less fires at once
	 */
	void armIn(long delayMillis);

	/**
	 * Fires the trigger now.
	 */
	void fire();

	/**
	 * Disarms the trigger and stops its wake-ups for good.
	 */
	void close();

}
