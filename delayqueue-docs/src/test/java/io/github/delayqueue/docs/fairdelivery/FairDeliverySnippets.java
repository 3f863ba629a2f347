package io.github.delayqueue.docs.fairdelivery;

import java.time.Duration;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.MessagePriorities.PriorityMode;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopGroups;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.docs.model.Reminder;

/** The fair delivery page's snippets. */
class FairDeliverySnippets {

	private final DelayedQueue queue;

	private final DelayedQueueAdmin admin;

	FairDeliverySnippets(DelayedQueue queue, DelayedQueueAdmin admin) {
		this.queue = queue;
		this.admin = admin;
	}

	void groups(Object reminder) {
		// tag::groups[]
		queue.schedule(ScheduleRequest.builder("reminders", reminder)
			.group("tenant-42")                             // 1 to 64 printable ASCII characters, no space
			.delay(Duration.ofMinutes(30))
			.build());

		admin.setGroupCap("reminders", "tenant-42", 2);     // at most 2 of tenant-42's leased at once, everywhere
		admin.setGroupCap("reminders", null, 5);            // the default of every group of the topic
		admin.setGroupRate("reminders", "tenant-42", 10.0); // at most 10 of tenant-42's started per second
		admin.setGroupRate("reminders", null, 50.0);        // the default rate of every group of the topic
		admin.pauseGroup("reminders", "tenant-42");         // nothing of tenant-42 is leased; the others flow
		admin.resumeGroup("reminders", "tenant-42");        // what is due is delivered at once
		long waiting = admin.groupControls("reminders", "tenant-42").waiting();
		// end::groups[]
	}

	void priorities(Object reminder) {
		// tag::priorities[]
		queue.schedule(ScheduleRequest.builder("reminders", reminder)
			.priority(9)                                    // 0 (lowest) to 9 (highest); 4 if unset
			.delay(Duration.ofMinutes(30))                  // it gets its priority when it falls due
			.build());

		admin.setPriorityMode("reminders", PriorityMode.STRICT);   // or WEIGHTED, the default
		// end::priorities[]
	}

	void groupPriorities(Object reminder) {
		// tag::groupPriorities[]
		queue.schedule(ScheduleRequest.builder("reminders", reminder)
			.group("tenant-42")                             // served in tenant-42's turn, beside the other groups
			.priority(9)                                    // and first within tenant-42's share
			.build());
		// end::groupPriorities[]
	}

	void top() {
		// tag::top[]
		TopGroups top = admin.topGroups("reminders", 20);   // the 20 groups with the most messages waiting
		for (TopGroups.GroupCount group : top.groups()) {
			System.out.printf("%s: %d waiting, %d in flight, paused: %b%n", group.group(), group.waiting(),
					group.inFlight(), group.paused());
		}
		// end::top[]
	}

	static class Listener {

		// tag::listener[]
		@DelayedListener(topic = "reminders")
		void remind(Reminder reminder, DeliveredMessage message) {
			String tenant = message.group();                // null for a message without a group
			int priority = message.priority();              // 4 for a message that set none
		}
		// end::listener[]

	}

}
