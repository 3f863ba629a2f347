package io.github.delayqueue.docs.subscriptions;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.Topics;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.docs.model.OrderTimeout;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.redis.RedisMessageStore;

import org.springframework.stereotype.Component;

/** The subscriptions page's snippets. */
class SubscriptionSnippets {

	private final DelayedQueue queue;

	private final DelayedQueueAdmin admin;

	private final RedisMessageStore store;

	private final Reservations reservations;

	SubscriptionSnippets(DelayedQueue queue, DelayedQueueAdmin admin, RedisMessageStore store,
			Reservations reservations) {
		this.queue = queue;
		this.admin = admin;
		this.store = store;
		this.reservations = reservations;
	}

	void schedule() {
		// tag::schedule[]
		// to the topic, as always: billing and notifications each receive it once it falls due
		queue.schedule("order-timeout", "order-42", new OrderTimeout("order-42"), Duration.ofMinutes(30));

		// while it waits in the topic, one cancel is one for every subscription
		queue.cancel("order-timeout", "order-42");
		// end::schedule[]
	}

	void admin() {
		// tag::admin[]
		String billing = Topics.subscriptionName("order-timeout", "billing");   // "order-timeout@billing"
		TopicStats counts = admin.stats(billing);                   // billing's own waiting, in flight, dead
		List<DeadLetter> failed = admin.deadLetters(billing, 0, 100);   // billing's alone
		admin.replayDeadLetters(billing);                           // back to billing, not to notifications
		admin.pause(billing);                                       // billing holds its copies; notifications goes on
		admin.resume(billing);
		Optional<MessageInfo> copy = admin.lookup(billing, "order-42");   // billing's copy, once it fell due
		// end::admin[]
	}

	void inCode() {
		// tag::in-code[]
		ListenerRegistration<OrderTimeout> billing = ListenerRegistration.of(
				Topics.subscriptionName("order-timeout", "billing"), OrderTimeout.class,
				(timeout, message) -> reservations.release(timeout.orderId()));

		// a listener declares its subscription when it starts; to declare it before (a partitioned topic: per partition)
		store.subscriptions().declare("order-timeout", "billing");
		Map<String, Instant> declared = store.subscriptions().of("order-timeout");   // name -> declared (Redis clock)
		// end::in-code[]
	}

}

// tag::listeners[]
@Component
class OrderTimeoutSubscribers {

	private final Reservations reservations;

	private final Mailer mailer;

	OrderTimeoutSubscribers(Reservations reservations, Mailer mailer) {
		this.reservations = reservations;
		this.mailer = mailer;
	}

	@DelayedListener(topic = "order-timeout", subscription = "billing")
	void releaseReservation(OrderTimeout timeout) {
		reservations.release(timeout.orderId());     // throwing retries billing's copy alone
	}

	@DelayedListener(topic = "order-timeout", subscription = "notifications")
	void emailCustomer(OrderTimeout timeout, DeliveredMessage message) {
		mailer.orderTimedOut(timeout.orderId());     // message.topic() is "order-timeout@notifications"
	}

}
// end::listeners[]

/** The stock held for unpaid orders. */
interface Reservations {

	/** Puts an order's reserved stock back on sale. */
	void release(String orderId);

}

/** Emails customers. */
interface Mailer {

	/** Tells the customer that the order was not paid in time. */
	void orderTimedOut(String orderId);

}
