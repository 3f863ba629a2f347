package io.github.delayqueue.docs.scheduling;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.docs.model.Reminder;

/** The scheduling page's snippets. */
class SchedulingSnippets {

	private final DelayedQueue queue;

	private final DelayedQueueAdmin admin;

	SchedulingSnippets(DelayedQueue queue, DelayedQueueAdmin admin) {
		this.queue = queue;
		this.admin = admin;
	}

	void moreOfTheApi(Reminder reminder, List<ScheduleRequest> requests) {
		// tag::api[]
		ScheduleResult r = queue.schedule(ScheduleRequest.builder("reminders", reminder)
				.id("reminder-7").dueAt(Instant.parse("2027-01-01T09:00:00Z")).header("tenant", "acme").build());
		List<ScheduleResult> rs = queue.scheduleAll(requests);      // atomic script calls of up to 100 messages
		// if Redis fails part way: PartialScheduleException says per request STORED / EXISTED / UNKNOWN / NOT_SENT,
		// and getUnfinished() gives the requests (with their ids) that are safe to schedule again
		queue.reschedule("order-timeout", "order-42", Duration.ofHours(1));
		Optional<MessageInfo> mine = queue.lookup("order-timeout", "order-42");   // a message of its own, by id
		// the operators' side is the DelayedQueueAdmin, a bean of its own
		TopicStats stats = admin.stats("order-timeout");            // waiting, ready, inflight, retrying, dead, nextDueAt
		List<DeadLetter> dead = admin.deadLetters("order-timeout", 0, 50);
		admin.replayDeadLetter("order-timeout", "order-42");        // or replayDeadLetters / purgeDeadLetter(s)
		Set<String> topics = admin.knownTopics();
		// end::api[]
	}

}
