package io.github.delayqueue.sample;

import java.util.List;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.ScheduleRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * What "after commit" cannot promise, answered: if the application stopped between an order's commit and the
 * write of its timeout to Redis, that timeout is missing. On start-up every order still waiting for payment has its
 * timeout scheduled again, due when it always was, with the order id as message id: where the timeout exists
 * (almost always), nothing changes.
 */
@Component
class OrderTimeoutRecovery implements ApplicationRunner {

	private static final Logger logger = LoggerFactory.getLogger(OrderTimeoutRecovery.class);

	private static final int PAGE = 500;

	private final OrderRepository orders;

	private final DelayedQueue queue;

	private final SampleProperties properties;

	OrderTimeoutRecovery(OrderRepository orders, DelayedQueue queue, SampleProperties properties) {
		this.orders = orders;
		this.queue = queue;
		this.properties = properties;
	}

	@Override
	public void run(ApplicationArguments args) {
		int restored = 0;
		String after = "";
		List<Order> page;
		do {
			page = this.orders.pending(after, PAGE);
			if (page.isEmpty()) {
				break;
			}
			List<ScheduleRequest> timeouts = page.stream()
				.map((order) -> ScheduleRequest.builder(OrderService.TIMEOUT_TOPIC, new OrderTimeout(order.id()))
					.id(order.id())
					.dueAt(order.createdAt().plus(this.properties.orders().paymentTimeout()))
					.build())
				.toList();
			restored += (int) this.queue.scheduleAll(timeouts)
				.stream()
				.filter((result) -> result.outcome().toCompletableFuture().join())
				.count();
			after = page.get(page.size() - 1).id();
		}
		while (page.size() == PAGE);
		if (restored > 0) {
			logger.warn("{} unpaid orders had no timeout in Redis (the application stopped between their commit and "
					+ "the Redis write): scheduled again", restored);
		}
	}

}
