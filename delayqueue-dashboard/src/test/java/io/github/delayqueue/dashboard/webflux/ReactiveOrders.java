package io.github.delayqueue.dashboard.webflux;

import java.time.Duration;

import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

/**
 * Orders and their timeouts, each change in one reactive transaction: the timeout is scheduled, or cancelled, when
 * the order's row is written, and the queue's change follows the commit.
 */
class ReactiveOrders {

	static final String TIMEOUTS = "order-timeout";

	private final DatabaseClient database;

	private final TransactionalOperator transactions;

	private final ReactiveDelayedQueue queue;

	private final Duration timeout;

	ReactiveOrders(DatabaseClient database, TransactionalOperator transactions, ReactiveDelayedQueue queue,
			@Value("${orders.timeout:30m}") Duration timeout) {
		this.database = database;
		this.transactions = transactions;
		this.queue = queue;
		this.timeout = timeout;
	}

	/**
	 * Creates an order and schedules its timeout; {@code refuse} fails the transaction after both, as a payment
	 * provider's refusal would, so that neither remains.
	 */
	Mono<Order> create(String id, boolean refuse) {
		Mono<Order> work = this.database.sql("INSERT INTO orders (id, status) VALUES (:id, 'NEW')")
			.bind("id", id)
			.fetch()
			.rowsUpdated()
			.then(this.queue.schedule(ScheduleRequest.builder(TIMEOUTS, new OrderTimeout(id)).id(id).delay(this.timeout).build()))
			.then(refuse ? Mono.error(new OrderRefusedException(id)) : find(id));
		return this.transactions.transactional(work);
	}

	/** Pays a new order; its timeout is cancelled once the payment has committed. */
	Mono<Order> pay(String id) {
		Mono<Order> work = setStatus(id, "PAID").flatMap((paid) -> paid
				? this.queue.cancelAfterCommit(TIMEOUTS, id).then(find(id)) : Mono.error(new OrderRefusedException(id)));
		return this.transactions.transactional(work);
	}

	/** Cancels an order that is still new; whether it did. */
	Mono<Boolean> cancelIfUnpaid(String id) {
		return this.transactions.transactional(setStatus(id, "CANCELLED"));
	}

	Mono<Order> find(String id) {
		return this.database.sql("SELECT id, status FROM orders WHERE id = :id")
			.bind("id", id)
			.map((row, metadata) -> new Order(row.get("id", String.class), row.get("status", String.class)))
			.one();
	}

	private Mono<Boolean> setStatus(String id, String status) {
		return this.database.sql("UPDATE orders SET status = :status WHERE id = :id AND status = 'NEW'")
			.bind("status", status)
			.bind("id", id)
			.fetch()
			.rowsUpdated()
			.map((updated) -> updated == 1);
	}

	record Order(String id, String status) {
	}

	record OrderTimeout(String orderId) {
	}

	/** An order that cannot be created or paid. */
	static class OrderRefusedException extends RuntimeException {

		OrderRefusedException(String id) {
			super("Order " + id + " refused");
		}

	}

}
