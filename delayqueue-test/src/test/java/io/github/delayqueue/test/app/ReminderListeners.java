package io.github.delayqueue.test.app;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;

/**
 * Listeners of the kit's tests: reminders are kept; a flaky topic always fails.
 */
public class ReminderListeners {

	/** The reminders' topic. */
	public static final String REMINDERS = "reminders";

	/** A topic whose listener always throws, giving up after two attempts. */
	public static final String FLAKY = "flaky";

	private final List<Reminder> reminded = new CopyOnWriteArrayList<>();

	@DelayedListener(topic = REMINDERS)
	void remind(Reminder reminder, DeliveredMessage message) {
		this.reminded.add(reminder);
	}

	@DelayedListener(topic = FLAKY, maxAttempts = "2")
	void fail(String payload) {
		throw new IllegalStateException("fails on purpose: " + payload);
	}

	/**
	 * What the reminders' listener was given, in order.
	 * @return the reminders
	 */
	public List<Reminder> reminded() {
		return this.reminded;
	}

}
