package io.github.delayqueue.docs.lifecycle;

import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DueHistogram;
import io.github.delayqueue.ExpiryAction;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.docs.model.OrderTimeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The lifecycle controls page's snippets. */
class LifecycleSnippets {

	private static final Logger log = LoggerFactory.getLogger(LifecycleSnippets.class);

	private final DelayedQueue queue;

	private final DelayedQueueAdmin admin;

	LifecycleSnippets(DelayedQueue queue, DelayedQueueAdmin admin) {
		this.queue = queue;
		this.admin = admin;
	}

	void controls(Object change, String text) {
		// tag::controls[]
		// look up one message by id, in whatever state: WAITING, RETRYING, IN_FLIGHT or DEAD (empty: none)
		queue.lookup("order-timeout", "order-42").ifPresent((message) -> {
			log.info("{} due {} after {} attempts", message.state(), message.dueAt(), message.attempts());
			OrderTimeout payload = message.payload(OrderTimeout.class);     // or message.payloadAsString()
		});

		// list waiting messages by due time, a page at a time (only the page is read; partitions are merged): the admin's
		MessagePage page = admin.listWaiting("order-timeout",
				WaitingQuery.first(100).to(Instant.now().plus(Duration.ofHours(1))));
		while (page.nextCursor() != null) {
			page = admin.listWaiting("order-timeout", WaitingQuery.first(100).after(page.nextCursor()));
		}

		// count them by when they fall due, exactly: a ZCOUNT per window and partition, no message read
		DueHistogram nextDay = admin.countDue("order-timeout", Instant.now(), Instant.now().plus(Duration.ofDays(1)), 24);
		log.info("{} due in the next day, {} in its first hour", nextDay.total(), nextDay.windows().get(0).count());

		// debounce / upsert: schedule, or replace the waiting message with this id (payload, headers, due time, expiry)
		ReplaceResult result = queue.scheduleOrReplace(ScheduleRequest.builder("search-index", change)
			.id("doc-7").delay(Duration.ofSeconds(5)).build());

		// expiry: never delivered after the deadline; dead-lettered with the reason (or dropped) instead
		queue.schedule(ScheduleRequest.builder("sms", text).id("otp-99").delay(Duration.ofSeconds(10))
			.expiresAt(Instant.now().plus(Duration.ofMinutes(2)), ExpiryAction.DISCARD).build());

		// pause and resume a topic on every instance; rate limit and concurrency cap across every instance
		admin.pause("order-timeout");
		admin.resume("order-timeout");                      // what is due is delivered at once
		admin.setLimits("emails", TopicLimits.NONE.withRate(50).withMaxInFlight(10));
		// end::controls[]
	}

}
