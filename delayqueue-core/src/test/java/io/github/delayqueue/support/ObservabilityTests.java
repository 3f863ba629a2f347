package io.github.delayqueue.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.micrometer.DelayQueueTopicMetrics;
import io.github.delayqueue.support.micrometer.DelayedMessageReceiverContext;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ObservabilityTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final MeterRegistry registry = new SimpleMeterRegistry();

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private LettuceConnectionFactory factory;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.factory = this.fixture.connectionFactory();
		this.store = this.fixture.store(this.factory);
		this.queue = this.fixture.queue(this.store);
		this.admin = this.fixture.admin(this.store);
		this.queue.setMonitor(new MicrometerDelayQueueMonitor(this.registry));
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void metersMoveAsMessagesFlow() {
		AtomicInteger calls = new AtomicInteger();
		this.fixture.consumer(this.factory, (container) -> container.getContainerProperties().setMonitor(new MicrometerDelayQueueMonitor(this.registry)))
			.listeners()
			.register(ListenerRegistration.of("metered", String.class, (payload, message) -> {
				if (payload.equals("fail") && calls.incrementAndGet() <= 2) {
					throw new IllegalStateException("boom");
				}
				if (payload.equals("dead")) {
					throw new UnsupportedOperationException("never");
				}
			}, ListenerOptions.builder().maxAttempts(5).errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(20, FixedBackOff.UNLIMITED_ATTEMPTS))
					.withNotRetryable(UnsupportedOperationException.class)).build()));

		this.queue.schedule("metered", "ok", Duration.ZERO);
		this.queue.schedule("metered", "fail", Duration.ofMillis(50));
		this.queue.schedule("metered", "dead", Duration.ZERO);
		this.queue.schedule("metered", "later", "x", Duration.ofHours(1));
		this.queue.cancel("metered", "later");

		await().atMost(WAIT).until(() -> count("delayqueue.messages.delivered") == 2
				&& this.registry.find("delayqueue.messages.dead").counters().size() == 1);
		assertThat(count("delayqueue.messages.scheduled")).isEqualTo(4);
		assertThat(count("delayqueue.messages.cancelled")).isEqualTo(1);
		assertThat(this.registry.get("delayqueue.messages.retried").tag("exception", "IllegalStateException")
			.counter().count()).isEqualTo(2);
		assertThat(this.registry.get("delayqueue.messages.dead").tag("exception", "UnsupportedOperationException")
			.counter().count()).isEqualTo(1);
		assertThat(this.registry.get("delayqueue.handle").tag("outcome", "success").timer().count()).isEqualTo(2);
		assertThat(this.registry.get("delayqueue.handle").tag("outcome", "retry").timer().count()).isEqualTo(2);
		Timer lateness = this.registry.get("delayqueue.lateness").tag("topic", "metered").timer();
		assertThat(lateness.count()).isEqualTo(5);
		assertThat(lateness.max(java.util.concurrent.TimeUnit.MILLISECONDS)).isLessThan(10_000);
	}

	@Test
	void gaugesShowEveryKnownTopicFromACachedRead() {
		this.queue.schedule("gauged", "a", Duration.ofHours(1));
		this.queue.schedule("gauged", "b", Duration.ZERO);
		this.queue.schedule("other", "c", Duration.ofHours(1));
		DelayQueueTopicMetrics metrics = new DelayQueueTopicMetrics(this.admin, this.registry,
				Duration.ofSeconds(30));
		assertThat(this.registry.find("delayqueue.messages.waiting").gauges()).isEmpty();
		metrics.refresh();
		assertThat(this.registry.get("delayqueue.messages.waiting").tag("topic", "gauged").gauge().value()).isEqualTo(1);
		assertThat(this.registry.get("delayqueue.messages.ready").tag("topic", "gauged").gauge().value()).isEqualTo(1);
		assertThat(this.registry.get("delayqueue.messages.waiting").tag("topic", "other").gauge().value()).isEqualTo(1);
		assertThat(this.registry.get("delayqueue.messages.inflight").tag("topic", "gauged").gauge().value()).isZero();
		assertThat(this.registry.get("delayqueue.messages.dead.current").tag("topic", "gauged").gauge().value()).isZero();

		this.queue.schedule("gauged", "c", Duration.ofHours(1));
		assertThat(this.registry.get("delayqueue.messages.waiting").tag("topic", "gauged").gauge().value())
			.as("a gauge reads the cache, not Redis").isEqualTo(1);
		metrics.refresh();
		assertThat(this.registry.get("delayqueue.messages.waiting").tag("topic", "gauged").gauge().value()).isEqualTo(2);
		assertThat(this.store.topics().all()).containsExactly("gauged", "other");
	}

	@Test
	void theTraceContextTravelsInTheHeadersAcrossTheDelay() {
		ObservationRegistry observations = ObservationRegistry.create();
		List<String> seenByReceiver = new CopyOnWriteArrayList<>();
		List<String> names = new CopyOnWriteArrayList<>();
		observations.observationConfig().observationHandler(new FakePropagation(seenByReceiver, names));
		this.queue.setObservationRegistry(observations);
		Recorder<String> recorder = new Recorder<>();
		this.fixture.consumer(this.factory, (container) -> container.getContainerProperties().setObservationRegistry(observations))
			.listeners()
			.register(ListenerRegistration.of("traced", String.class, recorder));

		this.queue.schedule("traced", "t-1", "x", Duration.ofMillis(100));
		await().atMost(WAIT).until(() -> recorder.received.size() == 1);
		DeliveredMessage message = recorder.received.get(0).message();
		assertThat(message.headers()).containsEntry("traceparent", "trace-of-t-1");
		await().atMost(WAIT).until(() -> seenByReceiver.size() == 1);
		assertThat(seenByReceiver).containsExactly("trace-of-t-1");
		assertThat(names).containsExactly("delayqueue.schedule", "delayqueue.listener");
	}

	private double count(String name) {
		return this.registry.find(name).counters().stream().mapToDouble((counter) -> counter.count()).sum();
	}

	/** Stands in for a tracer: injects a trace id on send and extracts it on receive. */
	record FakePropagation(List<String> seenByReceiver, List<String> names) implements ObservationHandler<Observation.Context> {

		@Override
		public void onStart(Observation.Context context) {
			this.names.add(context.getName());
			if (context instanceof DelayedMessageSenderContext sender) {
				sender.getSetter().set(sender.getCarrier(), "traceparent", "trace-of-" + sender.getMessageId());
			}
			if (context instanceof DelayedMessageReceiverContext receiver) {
				Map<String, String> carrier = receiver.getCarrier();
				this.seenByReceiver.add(receiver.getGetter().get(carrier, "traceparent"));
			}
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return true;
		}

	}

}
