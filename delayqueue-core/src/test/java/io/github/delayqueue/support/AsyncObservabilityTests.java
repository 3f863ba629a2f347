package io.github.delayqueue.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisReactiveDelayedQueue;
import io.github.delayqueue.listener.AsyncDelayedMessageHandler;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.HandlerTimeoutException;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.micrometer.DelayedMessageReceiverContext;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Metrics and observations on the non-blocking paths: an asynchronous listener is timed and observed from its start
 * to its work's completion, its failure recorded; the asynchronous and reactive schedule calls are counted and
 * observed as the blocking ones are, and the producer's trace travels across the delay to the consumer, a reactive
 * caller's trace taken from the Reactor context it subscribes with.
 */
class AsyncObservabilityTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final Duration WORK = Duration.ofMillis(300);

	private final MeterRegistry meters = new SimpleMeterRegistry();

	private final ObservationRegistry observations = ObservationRegistry.create();

	private final Spans spans = new Spans();

	private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor();

	private RedisFixture fixture;

	private LettuceConnectionFactory factory;

	private RedisDelayedQueue queue;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.factory = this.fixture.connectionFactory();
		RedisMessageStore store = this.fixture.store(this.factory);
		this.queue = this.fixture.queue(store);
		this.queue.setMonitor(new MicrometerDelayQueueMonitor(this.meters));
		this.observations.observationConfig().observationHandler(this.spans);
		this.queue.setObservationRegistry(this.observations);
	}

	@AfterEach
	void tearDown() {
		this.later.shutdownNow();
		this.fixture.close();
	}

	@Test
	void anAsynchronousListenerIsTimedAndObservedUntilItsWorkCompletes() {
		register("async-timed", (payload, message) -> {
			CompletableFuture<Object> work = new CompletableFuture<>();
			this.later.schedule(() -> {
				if (payload.equals("fail")) {
					work.completeExceptionally(new IllegalStateException("failed later"));
				}
				else {
					work.complete(null);
				}
			}, WORK.toMillis(), TimeUnit.MILLISECONDS);
			return work;
		}, ListenerOptions.builder().maxAttempts(1));
		this.queue.schedule("async-timed", "ok", "ok", Duration.ZERO);
		this.queue.schedule("async-timed", "fail", "fail", Duration.ZERO);

		await().atMost(WAIT).until(() -> this.spans.stopped("delayqueue.listener").size() == 2);
		await().atMost(WAIT).until(() -> count("delayqueue.messages.delivered") == 1
				&& count("delayqueue.messages.dead") == 1);
		Timer success = this.meters.get("delayqueue.handle").tag("outcome", "success").timer();
		Timer dead = this.meters.get("delayqueue.handle").tag("outcome", "dead").timer();
		assertThat(success.count()).isOne();
		assertThat(dead.count()).isOne();
		// timed from the start to the work's completion, not to the listener's return
		assertThat(success.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(WORK.toMillis());
		assertThat(dead.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(WORK.toMillis());
		assertThat(this.meters.get("delayqueue.messages.dead").tag("exception", "IllegalStateException").counter()
			.count()).as("tagged with what the work failed with, not a wrapper").isOne();

		Span ok = this.spans.listenerOf("ok");
		Span failed = this.spans.listenerOf("fail");
		assertThat(ok.durationNanos()).as("the span covers the work").isGreaterThanOrEqualTo(WORK.toNanos());
		assertThat(ok.error()).isNull();
		assertThat(failed.durationNanos()).isGreaterThanOrEqualTo(WORK.toNanos());
		assertThat(failed.error()).isInstanceOf(IllegalStateException.class).hasMessage("failed later");
	}

	@Test
	void anAsynchronousListenersTimeoutIsRecordedOnItsSpanAndItsMeters() {
		register("async-late", (payload, message) -> new CompletableFuture<>(),
				ListenerOptions.builder().maxAttempts(1).handlerTimeout(Duration.ofMillis(200)));
		this.queue.schedule("async-late", "late", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> count("delayqueue.messages.dead") == 1);
		assertThat(this.meters.get("delayqueue.messages.dead").tag("exception", "HandlerTimeoutException").counter()
			.count()).isOne();
		await().atMost(WAIT).until(() -> this.spans.stopped("delayqueue.listener").size() == 1);
		assertThat(this.spans.listenerOf("late").error()).as("the span ends with the timeout, not the cancellation")
			.isInstanceOf(HandlerTimeoutException.class);
	}

	@Test
	@SuppressWarnings("try")
	void theAsynchronousScheduleIsCountedAndCarriesTheCallersTraceAcrossTheDelay() throws Exception {
		List<Map<String, String>> headers = consume("async-traced");
		Observation caller = Observation.start("caller", this.observations);
		try (Observation.Scope scope = caller.openScope()) {
			this.queue.async().schedule("async-traced", "a-1", "x", Duration.ofMillis(50)).get(10, TimeUnit.SECONDS);
		}
		finally {
			caller.stop();
		}

		assertThat(count("delayqueue.messages.scheduled")).isOne();
		Span schedule = this.spans.scheduleOf("a-1");
		assertThat(schedule.parent()).as("the schedule continues the caller's trace").isSameAs(caller);
		await().atMost(WAIT).until(() -> headers.size() == 1);
		assertThat(headers.get(0)).containsEntry("traceparent", "trace-of-a-1");
		await().atMost(WAIT).until(() -> this.spans.stopped("delayqueue.listener").size() == 1);
		assertThat(this.spans.listenerOf("a-1").extracted()).isEqualTo("trace-of-a-1");
	}

	@Test
	void theReactiveScheduleContinuesTheTraceOfTheSubscribersContext() {
		List<Map<String, String>> headers = consume("reactive-traced");
		RedisReactiveDelayedQueue reactive = new RedisReactiveDelayedQueue(this.queue);
		Observation caller = Observation.start("caller", this.observations);

		// a WebFlux application carries its observation in the Reactor context, not in a thread local
		reactive.schedule("reactive-traced", "r-1", "x", Duration.ofMillis(50))
			.contextWrite((context) -> context.put("micrometer.observation", caller))
			.block(Duration.ofSeconds(10));
		reactive.schedule("reactive-traced", "r-2", "x", Duration.ofMillis(50)).block(Duration.ofSeconds(10));
		caller.stop();

		assertThat(count("delayqueue.messages.scheduled")).isEqualTo(2);
		assertThat(this.spans.scheduleOf("r-1").parent()).as("the schedule continues the subscriber's trace")
			.isSameAs(caller);
		assertThat(this.spans.scheduleOf("r-2").parent()).as("none in the context, none taken").isNull();
		await().atMost(WAIT).until(() -> headers.size() == 2);
		await().atMost(WAIT).until(() -> this.spans.stopped("delayqueue.listener").size() == 2);
		assertThat(this.spans.listenerOf("r-1").extracted()).isEqualTo("trace-of-r-1");
	}

	private List<Map<String, String>> consume(String topic) {
		List<Map<String, String>> headers = new CopyOnWriteArrayList<>();
		register(topic, (payload, message) -> {
			headers.add(message.headers());
			return Mono.delay(Duration.ofMillis(10)).then().toFuture();
		}, ListenerOptions.builder());
		return headers;
	}

	private void register(String topic, AsyncDelayedMessageHandler<String> handler, ListenerOptions.Builder options) {
		this.fixture.consumer(this.factory, (container) -> {
			container.getContainerProperties().setMonitor(new MicrometerDelayQueueMonitor(this.meters));
			container.getContainerProperties().setObservationRegistry(this.observations);
		})
			.listeners()
			.register(ListenerRegistration.of(topic, String.class, handler, options
				.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(20, FixedBackOff.UNLIMITED_ATTEMPTS)))
				.build()));
	}

	private double count(String name) {
		return this.meters.find(name).counters().stream().mapToDouble((counter) -> counter.count()).sum();
	}

	/**
	 * One observation as a tracer would see it: when it started and stopped, its parent, its error, and the trace a
	 * receiver extracted.
	 */
	static final class Span {

		final Observation.Context context;

		final long startNanos = System.nanoTime();

		volatile long stopNanos;

		volatile @Nullable String extracted;

		Span(Observation.Context context) {
			this.context = context;
		}

		long durationNanos() {
			return this.stopNanos - this.startNanos;
		}

		@Nullable Throwable error() {
			return this.context.getError();
		}

		@Nullable Object parent() {
			return this.context.getParentObservation();
		}

		@Nullable String extracted() {
			return this.extracted;
		}

	}

	/** Stands in for a tracer: injects a trace id on send, extracts it on receive, and keeps every span. */
	static final class Spans implements ObservationHandler<Observation.Context> {

		private final List<Span> spans = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(Observation.Context context) {
			Span span = new Span(context);
			if (context instanceof DelayedMessageSenderContext sender) {
				sender.getSetter().set(sender.getCarrier(), "traceparent", "trace-of-" + sender.getMessageId());
			}
			if (context instanceof DelayedMessageReceiverContext receiver) {
				span.extracted = receiver.getGetter().get(receiver.getCarrier(), "traceparent");
			}
			this.spans.add(span);
		}

		@Override
		public void onStop(Observation.Context context) {
			this.spans.stream().filter((span) -> span.context == context).forEach((span) -> span.stopNanos = System.nanoTime());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

		List<Span> stopped(String name) {
			return this.spans.stream().filter((span) -> span.context.getName().equals(name) && span.stopNanos != 0).toList();
		}

		Span scheduleOf(String id) {
			return this.spans.stream()
				.filter((span) -> span.context instanceof DelayedMessageSenderContext sender
						&& id.equals(sender.getMessageId()))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no schedule observation of " + id));
		}

		Span listenerOf(String id) {
			return this.spans.stream()
				.filter((span) -> span.context instanceof DelayedMessageReceiverContext receiver
						&& id.equals(receiver.getMessageId()) && span.stopNanos != 0)
				.findFirst()
				.orElseThrow(() -> new AssertionError("no listener observation of " + id));
		}

	}

}
