package io.github.delayqueue.listener;

import java.lang.reflect.InvocationTargetException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayedMessageReceiverContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link ListenerInvoker}, the stage that calls a listener's handler for one delivery: it reads the stored message as
 * the listener's payload type, unwraps what reflection wraps, and observes the call when a registry is set. The
 * messages are real: scheduled, stored and leased in a real Redis.
 */
class ListenerInvokerTests {

	private static final String TOPIC = "invoked";

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final RedisFixture fixture = new RedisFixture(redis.get());

	private final RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());

	private final RedisDelayedQueue queue = this.fixture.queue(this.store);

	private final List<Object> handled = new CopyOnWriteArrayList<>();

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void aReadableMessageIsHandledAsTheListenersType() {
		this.queue.schedule(TOPIC, "order", new Order("o-1", 3), Duration.ZERO);
		ListenerInvoker invoker = invoker(Order.class, (payload, message) -> this.handled.add(payload),
				ObservationRegistry.NOOP);

		ListenerInvoker.Result result = invoker.invoke(leaseOne());

		assertThat(result.failure()).isNull();
		assertThat(result.observed()).as("no registry: no observation").isFalse();
		assertThat(this.handled).containsExactly(new Order("o-1", 3));
		assertThat(result.delivered().id()).isEqualTo("order");
		assertThat(result.delivered().attempt()).isEqualTo(1);
	}

	@Test
	void anUnreadableStoredMessageFailsWithUnreadableMessageException() {
		this.queue.schedule(TOPIC, "garbled", "x", Duration.ZERO);
		// the stored envelope is overwritten with bytes that are no envelope of any format
		String bucket = redis.get().call("KEYS", RedisFixture.PREFIX + ":{" + TOPIC + "}:body:*");
		assertThat(bucket).doesNotContain("\n");
		redis.get().call("HSET", bucket, "garbled", "not an envelope");
		ListenerInvoker invoker = invoker(String.class, (payload, message) -> this.handled.add(payload),
				ObservationRegistry.NOOP);

		ListenerInvoker.Result result = invoker.invoke(leaseOne());

		assertThat(result.failure()).isInstanceOf(UnreadableMessageException.class);
		assertThat(this.handled).as("the handler was not called").isEmpty();
		assertThat(result.observed()).isFalse();
		assertThat(result.delivered().id()).isEqualTo("garbled");
	}

	@Test
	void aPayloadThatCannotBeReadAsTheTypeFailsWithTheConvertersException() {
		this.queue.schedule(TOPIC, "text", "not an order", Duration.ZERO);
		ListenerInvoker invoker = invoker(Order.class, (payload, message) -> this.handled.add(payload),
				ObservationRegistry.NOOP);
		Throwable expected = catchThrowable(() -> this.fixture.converter()
			.read(this.fixture.converter().write("not an order"), Order.class));
		assertThat(expected).isNotNull();

		ListenerInvoker.Result result = invoker.invoke(leaseOne());

		assertThat(result.failure()).isExactlyInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
		assertThat(this.handled).isEmpty();
	}

	@Test
	void whatReflectionWrapsIsUnwrapped() {
		IllegalStateException cause = new IllegalStateException("from the listener method");
		this.queue.schedule(TOPIC, "reflected", "x", Duration.ZERO);
		ListenerInvoker invoker = invoker(String.class, (payload, message) -> {
			throw new InvocationTargetException(new InvocationTargetException(cause));
		}, ObservationRegistry.NOOP);

		ListenerInvoker.Result result = invoker.invoke(leaseOne());

		assertThat(result.failure()).isSameAs(cause);
	}

	@Test
	void anObservationIsMadeWhenARegistryIsSetAndContinuesTheTraceHeaders() {
		ObservationRegistry registry = ObservationRegistry.create();
		RecordingHandler observations = new RecordingHandler();
		registry.observationConfig().observationHandler(observations);
		List<Observation> currentInHandler = new CopyOnWriteArrayList<>();
		this.queue.schedule(ScheduleRequest.builder(TOPIC, "x").id("traced").delay(Duration.ZERO)
			.header("traceparent", "trace-of-traced").build());
		ListenerInvoker invoker = invoker(String.class, (payload, message) -> {
			currentInHandler.add(registry.getCurrentObservation());
			throw new IllegalStateException("observed failure");
		}, registry);

		ListenerInvoker.Result result = invoker.invoke(leaseOne());

		assertThat(result.observed()).isTrue();
		assertThat(result.failure()).hasMessage("observed failure");
		assertThat(observations.started).singleElement().satisfies((context) -> {
			assertThat(context.getName()).isEqualTo("delayqueue.listener");
			assertThat(context.getMessageId()).isEqualTo("traced");
			assertThat(context.getTopic()).isEqualTo(TOPIC);
		});
		assertThat(observations.traceparents).as("the receiver reads the sender's trace from the headers")
			.containsExactly("trace-of-traced");
		assertThat(currentInHandler).as("the handler runs in the observation's scope").singleElement().isNotNull();
		assertThat(observations.stopped).hasSize(1);
		assertThat(observations.stopped.get(0).getError()).hasMessage("observed failure");
	}

	@Test
	void aFailingMonitorChangesNothing() {
		this.queue.schedule(TOPIC, "monitored", "x", Duration.ZERO);
		DelayQueueMonitor failing = new DelayQueueMonitor() {

			@Override
			public void dispatched(String topic, long latenessMillis) {
				throw new IllegalStateException("monitor down");
			}

		};
		ListenerInvoker invoker = new ListenerInvoker(registration(String.class,
				(payload, message) -> this.handled.add(payload)), this.fixture.converter(), failing,
				ObservationRegistry.NOOP, null);

		ListenerInvoker.Result result = invoker.invoke(leaseOne());

		assertThat(result.failure()).isNull();
		assertThat(this.handled).containsExactly("x");
	}

	private <T> ListenerInvoker invoker(Class<T> type, DelayedMessageHandler<T> handler, ObservationRegistry registry) {
		return new ListenerInvoker(registration(type, handler), this.fixture.converter(), new DelayQueueMonitor() {
		}, registry, null);
	}

	@SuppressWarnings("unchecked")
	private static <T> ListenerRegistration<Object> registration(Class<T> type, DelayedMessageHandler<T> handler) {
		return (ListenerRegistration<Object>) (ListenerRegistration<?>) ListenerRegistration.of(TOPIC, type, handler);
	}

	private Delivery leaseOne() {
		Claim claim = this.store.leases().claim(TOPIC, 1, 30_000, 10);
		assertThat(claim.messages()).hasSize(1);
		return new Delivery(claim.messages().get(0), 0, claim.serverTime(), System.nanoTime());
	}

	record Order(String id, int quantity) {
	}

	/** Stands in for a tracer: records the receiver contexts and the trace each one carries. */
	static final class RecordingHandler implements ObservationHandler<DelayedMessageReceiverContext> {

		final List<DelayedMessageReceiverContext> started = new CopyOnWriteArrayList<>();

		final List<DelayedMessageReceiverContext> stopped = new CopyOnWriteArrayList<>();

		final List<String> traceparents = new CopyOnWriteArrayList<>();

		@Override
		public void onStart(DelayedMessageReceiverContext context) {
			this.started.add(context);
			this.traceparents.add(context.getGetter().get(context.getCarrier(), "traceparent"));
		}

		@Override
		public void onStop(DelayedMessageReceiverContext context) {
			this.stopped.add(context);
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof DelayedMessageReceiverContext;
		}

	}

}
