package io.github.delayqueue.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DelayedListenerEndpointRegistrar;
import io.github.delayqueue.listener.adapter.DelayQueueHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;


import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DelayedListener(batch = "true")} methods: a list of payloads with the list of their messages, a list of
 * Spring Messaging messages, a {@code Mono<Void>}; and signatures a batch cannot fill fail at start-up, naming the
 * method.
 */
class BatchListenerMethodTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void batchMethodsReceivePayloadsWithTheirMessagesInOrder() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, BatchListeners.class);
			context.refresh();
			DelayedQueue queue = context.getBean(DelayedQueue.class);
			BatchListeners listeners = context.getBean(BatchListeners.class);
			for (int i = 0; i < 20; i++) {
				queue.schedule("closing", "o" + i, "order-" + i, Duration.ZERO);
				queue.schedule("messages", "n" + i, "note-" + i, Duration.ZERO);
				queue.schedule("reactive", "r" + i, "r-" + i, Duration.ZERO);
			}

			await().atMost(WAIT).until(() -> listeners.closed.size() == 20 && listeners.notes.size() == 20
					&& listeners.reactive.size() == 20);
			await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "closing").isEmpty()
					&& RedisFixture.keysOf(redis.get(), "messages").isEmpty()
					&& RedisFixture.keysOf(redis.get(), "reactive").isEmpty());
			assertThat(listeners.closed).allSatisfy((pair) -> assertThat(pair).startsWith("o"))
				.allSatisfy((pair) -> assertThat(pair.substring(1, pair.indexOf(' ')))
					.isEqualTo(pair.substring(pair.indexOf('-') + 1)));
			assertThat(listeners.notes).allSatisfy((note) -> assertThat(note).matches("n(\\d+) note-\\1"));
			assertThat(listeners.largest).as("a call took more than one message").isGreaterThan(1);
		}
	}

	@Test
	void aBatchMethodTakingOneMessagesMetadataFailsAtStartupNamingIt() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, SingleMetadataListener.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("SingleMetadataListener.onBatch")
				.withStackTraceContaining("List<DeliveredMessage>");
		}
	}

	@Test
	void aBatchMethodWithoutAListFailsAtStartupNamingIt() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, NoListListener.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("NoListListener.onBatch")
				.withStackTraceContaining("batch listener");
		}
	}

	@Test
	void aBatchMethodTakingItsMessagesFailsAtStartupWithAFactoryThatCannotResolveThem() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, PlainFactory.class, BatchListeners.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("onTimeouts")
				.withStackTraceContaining("DelayedListenerMessageHandlerMethodFactory");
		}
	}

	@Test
	void batchSettingsOnAListenerOfOneMessagePerCallFailAtStartupNamingIt() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, NotBatchListener.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("NotBatchListener.onMessage")
				.withStackTraceContaining("only a batch listener");
		}
	}

	static class NotBatchListener {

		@DelayedListener(topic = "single", batchMaxMessages = "10")
		void onMessage(String payload) {
		}

	}

	/** Sets Spring's own factory, whose payload resolver would pass the payloads in place of the messages. */
	static class PlainFactory implements DelayedListenerConfigurer {

		@Override
		public void configureDelayedListeners(DelayedListenerEndpointRegistrar registrar) {
			DefaultMessageHandlerMethodFactory factory = new DefaultMessageHandlerMethodFactory();
			factory.afterPropertiesSet();
			registrar.setMessageHandlerMethodFactory(factory);
		}

	}

	static class BatchListeners {

		final List<String> closed = new CopyOnWriteArrayList<>();

		final List<String> notes = new CopyOnWriteArrayList<>();

		final List<String> reactive = new CopyOnWriteArrayList<>();

		volatile int largest;

		@DelayedListener(topic = "closing", batch = "true", batchMaxWait = "200ms", batchMaxMessages = "8")
		void onTimeouts(List<String> orders, List<DeliveredMessage> messages) {
			assertThat(orders.size()).isLessThanOrEqualTo(8);
			this.largest = Math.max(this.largest, orders.size());
			for (int i = 0; i < orders.size(); i++) {
				this.closed.add(messages.get(i).id() + " " + orders.get(i));
			}
		}

		@DelayedListener(topic = "messages", batch = "${batch.enabled:true}")
		void onNotes(List<Message<String>> notes) {
			notes.forEach((note) -> this.notes
				.add(note.getHeaders().get(DelayQueueHeaders.MESSAGE_ID) + " " + note.getPayload()));
		}

		@DelayedListener(topic = "reactive", batch = "true")
		Mono<Void> onReactive(List<String> payloads) {
			return Mono.delay(Duration.ofMillis(10)).doOnNext((tick) -> this.reactive.addAll(payloads)).then();
		}

	}

	static class SingleMetadataListener {

		@DelayedListener(topic = "wrong", batch = "true")
		void onBatch(List<String> payloads, DeliveredMessage message) {
		}

	}

	static class NoListListener {

		@DelayedListener(topic = "wrong", batch = "true")
		void onBatch(String payload) {
		}

	}

}
