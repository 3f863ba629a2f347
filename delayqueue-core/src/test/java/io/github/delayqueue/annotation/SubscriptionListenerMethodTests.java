package io.github.delayqueue.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.build.redis.TestRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DelayedListener(topic = ..., subscription = ...)}: two methods subscribed to one topic each receive every
 * message, under the subscription's full name; a listener of the topic itself beside them, or an invalid
 * subscription name, fails at start-up naming the method.
 */
class SubscriptionListenerMethodTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void eachSubscribedMethodReceivesEveryMessageOfTheTopic() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, OrderTimeouts.class);
			context.refresh();
			DelayedQueue queue = context.getBean(DelayedQueue.class);
			OrderTimeouts listeners = context.getBean(OrderTimeouts.class);
			for (int i = 0; i < 10; i++) {
				queue.schedule("order-timeout", "order-" + i, "o" + i, Duration.ofMillis(50));
			}

			await().atMost(WAIT).until(() -> listeners.released.size() == 10 && listeners.emailed.size() == 10);
			assertThat(listeners.released).containsExactlyInAnyOrderElementsOf(listeners.emailed);
			assertThat(listeners.topics).containsOnly("order-timeout@billing", "order-timeout@notifications");
		}
	}

	@Test
	void aListenerOfTheTopicItselfBesideItsSubscriptionsFailsAtStartup() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, Mixed.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("give every listener of it a subscription");
		}
	}

	@Test
	void anInvalidSubscriptionNameFailsAtStartupNamingTheMethod() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, BadName.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("BadName.onTimeout")
				.withStackTraceContaining("invalid subscription");
		}
	}

	static class OrderTimeouts {

		final List<String> released = new CopyOnWriteArrayList<>();

		final List<String> emailed = new CopyOnWriteArrayList<>();

		final List<String> topics = new CopyOnWriteArrayList<>();

		@DelayedListener(topic = "order-timeout", subscription = "billing")
		void release(String order, DeliveredMessage message) {
			this.released.add(order);
			this.topics.add(message.topic());
		}

		@DelayedListener(topic = "order-timeout", subscription = "notifications")
		void email(String order, DeliveredMessage message) {
			this.emailed.add(order);
			this.topics.add(message.topic());
		}

	}

	static class Mixed {

		@DelayedListener(topic = "mixed", subscription = "billing")
		void billing(String payload) {
		}

		@DelayedListener(topic = "mixed")
		void plain(String payload) {
		}

	}

	static class BadName {

		@DelayedListener(topic = "bad", subscription = "has space")
		void onTimeout(String payload) {
		}

	}

}
