package io.github.delayqueue.docs.scheduling;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.docs.model.Reminder;
import reactor.core.publisher.Mono;

/** The scheduling page's snippets of the non-blocking APIs. */
class NonBlockingSnippets {

	private final AsyncDelayedQueue async;

	private final ReactiveDelayedQueue reactive;

	NonBlockingSnippets(AsyncDelayedQueue async, ReactiveDelayedQueue reactive) {
		this.async = async;
		this.reactive = reactive;
	}

	CompletableFuture<String> async(Reminder reminder) {
		// tag::async[]
		// a bean, and delayedQueue.async(): returns at once; complete = stored in Redis
		CompletableFuture<String> id = async.schedule("reminders", reminder, Duration.ofHours(1));
		id.whenComplete((stored, failure) -> {
			// runs on the client's I/O thread: do not block here
		});
		// bad input throws here, at the call, and nothing is written
		// end::async[]
		return id;
	}

	Mono<String> reactive(String orderId) {
		// tag::reactive[]
		// in a WebFlux handler: nothing happens until subscribed; bad input is an error signal
		return reactive.schedule(ScheduleRequest.builder("order-timeout", new OrderTimeout(orderId))
				.id(orderId).delay(Duration.ofMinutes(30)).build())
			.map(ScheduleResult::id);
		// end::reactive[]
	}

}
