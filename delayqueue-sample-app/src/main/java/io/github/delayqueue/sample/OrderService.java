package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.annotation.DelayedListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates orders with a payment timeout, takes payments, and cancels orders whose timeout fires first.
 */
@Service
public class OrderService {

	static final String TIMEOUT_TOPIC = "order-timeout";

	private static final Logger logger = LoggerFactory.getLogger(OrderService.class);

	private final OrderRepository orders;

	private final DelayedQueue queue;

	private final SampleProperties properties;

	OrderService(OrderRepository orders, DelayedQueue queue, SampleProperties properties) {
		this.orders = orders;
		this.queue = queue;
		this.properties = properties;
	}

	/**
	 * Creates an order waiting for payment and schedules its timeout, with the order id as the message id.
	 * @param customer who orders
	 * @param amount how much is to be paid
	 * @return the order
	 */
	@Transactional
	public Order create(String customer, BigDecimal amount) {
		Instant now = Instant.now();
		Order order = new Order(UUID.randomUUID().toString(), customer, amount, OrderStatus.PENDING_PAYMENT, now, now);
		this.orders.save(order);
		// stored when the order's transaction commits; nothing if it rolls back
		this.queue.schedule(ScheduleRequest.builder(TIMEOUT_TOPIC, new OrderTimeout(order.id()))
			.id(order.id())
			.delay(this.properties.orders().paymentTimeout())
			.build());
		logger.info("Order {} created for {} ({}): PENDING_PAYMENT, cancelled unless paid within {}", order.id(),
				customer, amount, this.properties.orders().paymentTimeout());
		return order;
	}

	/**
	 * Pays an order and cancels its timeout when the payment commits. Paying a paid order again changes nothing.
	 * @param id the order id
	 * @return the paid order
	 * @throws OrderNotFoundException if there is no such order
	 * @throws OrderCancelledException if the order was cancelled already
	 */
	@Transactional
	public Order pay(String id) {
		OrderRepository.Transition transition = this.orders.transition(id, OrderStatus.PENDING_PAYMENT,
				OrderStatus.PAID);
		if (transition.status() == null) {
			throw new OrderNotFoundException(id);
		}
		if (transition.status() == OrderStatus.CANCELLED) {
			throw new OrderCancelledException(id);
		}
		if (transition.moved()) {
			this.queue.cancelAfterCommit(TIMEOUT_TOPIC, id)
				.thenAccept((cancelled) -> logger.info("Order {} PAID; its timeout was {}", id,
						cancelled ? "cancelled" : "already on its way"));
		}
		return get(id);
	}

	/**
	 * Cancels the order if it is still unpaid. Idempotent: a redelivered timeout changes nothing.
	 * @param timeout the timeout message
	 * @param message its metadata
	 */
	@DelayedListener(topic = TIMEOUT_TOPIC)
	void onTimeout(OrderTimeout timeout, DeliveredMessage message) {
		OrderRepository.Transition transition = this.orders.transition(timeout.orderId(),
				OrderStatus.PENDING_PAYMENT, OrderStatus.CANCELLED);
		if (transition.moved()) {
			logger.info("Order {} CANCELLED: not paid in time (timeout due {}, attempt {})", timeout.orderId(),
					message.dueAt(), message.attempt());
		}
		else {
			logger.info("Order {} timeout ignored: the order is {}", timeout.orderId(),
					(transition.status() != null) ? transition.status() : "gone");
		}
	}

	/**
	 * An order.
	 * @param id the order id
	 * @return the order
	 * @throws OrderNotFoundException if there is no such order
	 */
	public Order get(String id) {
		return this.orders.find(id).orElseThrow(() -> new OrderNotFoundException(id));
	}

	/**
	 * The most recent orders, newest first.
	 * @param limit how many at most
	 * @return the orders
	 */
	public List<Order> recent(int limit) {
		return this.orders.recent(limit);
	}

}
