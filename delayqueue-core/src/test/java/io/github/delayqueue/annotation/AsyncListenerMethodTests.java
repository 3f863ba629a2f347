package io.github.delayqueue.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DelayedListener} methods whose work completes later: a {@code Mono<Void>} that completes empty acknowledges
 * (spring-kafka once never acknowledged it), a failed {@code Mono} or {@code CompletableFuture} is retried (spring-kafka
 * once ignored failed futures), and a return type that cannot be awaited fails at start-up, naming the method.
 */
class AsyncListenerMethodTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	@Test
	void monoVoidAndCompletableFutureMethodsAcknowledgeAndTheirFailuresAreRetried() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, ReactiveListeners.class);
			context.refresh();
			DelayedQueue queue = context.getBean(DelayedQueue.class);
			ReactiveListeners listeners = context.getBean(ReactiveListeners.class);

			queue.schedule("mono-void", "ok-1", "payload", Duration.ZERO);
			queue.schedule("mono-void", "fails-once", "payload", Duration.ZERO);
			queue.schedule("future", "f-1", "payload", Duration.ZERO);

			await().atMost(WAIT).until(() -> listeners.handled.size() == 3);
			// each acknowledged once its work completed: nothing is left of the topics
			await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "mono-void").isEmpty()
					&& RedisFixture.keysOf(redis.get(), "future").isEmpty());
			assertThat(listeners.handled).containsExactlyInAnyOrder("mono-void ok-1 1", "mono-void fails-once 2",
					"future f-1 2");
			assertThat(listeners.attempts.get("fails-once")).hasValue(2);
			assertThat(listeners.attempts.get("f-1")).hasValue(2);
		}
	}

	@Test
	void aMethodReturningAFluxFailsAtStartupNamingIt() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, FluxListener.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("FluxListener.onMessage")
				.withStackTraceContaining("cannot be awaited");
		}
	}

	@Test
	void aMethodReturningAPlainFutureFailsAtStartupNamingIt() {
		try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
			context.register(PlainSpringTests.DelayQueueConfiguration.class, FutureListener.class);
			assertThatException().isThrownBy(context::refresh)
				.withStackTraceContaining("FutureListener.onMessage")
				.withStackTraceContaining("cannot be awaited");
		}
	}

	static class ReactiveListeners {

		final List<String> handled = new CopyOnWriteArrayList<>();

		final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

		@DelayedListener(topic = "mono-void")
		Mono<Void> onMonoVoid(String payload, DeliveredMessage message) {
			int attempt = this.attempts.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if (message.id().equals("fails-once") && attempt == 1) {
				return Mono.delay(Duration.ofMillis(20)).then(Mono.error(new IllegalStateException("not yet")));
			}
			return Mono.delay(Duration.ofMillis(20)).doOnNext((tick) -> record(message)).then();
		}

		@DelayedListener(topic = "future")
		CompletableFuture<String> onFuture(String payload, DeliveredMessage message) {
			int attempt = this.attempts.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
			if (attempt == 1) {
				return CompletableFuture.supplyAsync(() -> {
					throw new IllegalStateException("not yet");
				});
			}
			return CompletableFuture.supplyAsync(() -> {
				record(message);
				return "done";
			});
		}

		private void record(DeliveredMessage message) {
			this.handled.add(message.topic() + " " + message.id() + " " + message.attempt());
		}

	}

	static class FluxListener {

		@DelayedListener(topic = "flux")
		Flux<String> onMessage(String payload) {
			return Flux.just(payload);
		}

	}

	static class FutureListener {

		@DelayedListener(topic = "plain-future")
		Future<String> onMessage(String payload) {
			return CompletableFuture.completedFuture(payload);
		}

	}

}
