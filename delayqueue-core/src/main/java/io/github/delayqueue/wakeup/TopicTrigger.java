package io.github.delayqueue.wakeup;

import java.util.concurrent.TimeUnit;

/**
 * A topic's wake-up: armed for the next due time, fired by the timer, the wake channel, a (re)subscription or
 * the fallback poll. Firing runs the topic's callback, which must only hand work to another thread.
 *
 * @since 0.1.0
 */
public interface TopicTrigger {

	/**
	 * Arms the trigger to fire after a delay, unless it is already armed to fire no later than that.
	 * @param delay the delay; zero or less fires at once
	 * @param unit the delay's unit
	 */
	void armIn(long delay, TimeUnit unit);

	/**
	 * Fires the trigger now.
	 */
	void fire();

	/**
	 * Disarms the trigger and stops its wake-ups for good.
	 */
	void close();

}
