package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.FailureAction;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Positive;
import io.github.delayqueue.listener.adapter.DelayQueueHeaders;
import io.github.delayqueue.build.redis.TestRedis;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.stereotype.Component;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@DirtiesContext
@SpringBootTest(properties = { "app.topics.reminder=reminders", "delayqueue.listener.backoff.delay=20ms",
		"delayqueue.listener.backoff.max-delay=100ms", "delayqueue.wake-up.poll-interval=200ms" })
class DelayedListenerIntegrationTests {

	static final TestRedis redis = TestRedis.builder().build();

	private static final Duration WAIT = Duration.ofSeconds(20);

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.host", redis::host);
		registry.add("spring.data.redis.port", redis::port);
		registry.add("spring.data.redis.database", redis::database);
	}

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	@Autowired
	private Listeners listeners;

	@Autowired
	private DelayedListenerEndpointRegistry registry;

	@BeforeEach
	void reset() {
		redis.flush();
		this.listeners.clear();
	}

	@Test
	void aRecordPayloadArrivesWithItsMetadata() {
		String id = this.queue.schedule(ScheduleRequest.builder("order-timeout", new OrderTimeout("o-1", 42))
			.header("tenant", "acme")
			.delay(Duration.ofMillis(100))
			.build()).id();
		await().atMost(WAIT).until(() -> this.listeners.timeouts.size() == 1);
		assertThat(this.listeners.timeouts.get(0)).isEqualTo(new OrderTimeout("o-1", 42));
		DeliveredMessage message = this.listeners.timeoutMessages.get(0);
		assertThat(message.id()).isEqualTo(id);
		assertThat(message.topic()).isEqualTo("order-timeout");
		assertThat(message.attempt()).isEqualTo(1);
		assertThat(message.headers()).containsEntry("tenant", "acme");
		assertThat(this.listeners.tenants).containsExactly("acme");
	}

	@Test
	void aGenericListPayloadArrivesTyped() {
		this.queue.schedule("batches", List.of(new OrderTimeout("a", 1), new OrderTimeout("b", 2)), Duration.ZERO);
		await().atMost(WAIT).until(() -> this.listeners.batches.size() == 1);
		assertThat(this.listeners.batches.get(0)).containsExactly(new OrderTimeout("a", 1), new OrderTimeout("b", 2));
	}

	@Test
	void aStringPayloadOnAPlaceholderTopicArrivesWithTheAttemptHeader() {
		this.queue.schedule("reminders", "call mum", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.listeners.reminders.size() == 1);
		assertThat(this.listeners.reminders.get(0)).isEqualTo("call mum#1");
	}

	@Test
	void aThrowingListenerIsRetriedThenDeadLettered() {
		this.queue.schedule("failing", "f-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats("failing").dead() == 1);
		assertThat(this.listeners.failures.get()).isEqualTo(3);
		DeadLetter letter = this.admin.deadLetters("failing", 0, 10).get(0);
		assertThat(letter.attempts()).isEqualTo(3);
		assertThat(letter.error()).isEqualTo("java.lang.IllegalStateException: always fails");
	}

	@Test
	void aPayloadThatCannotBeConvertedIsDeadLetteredAtOnce() {
		this.queue.schedule("order-timeout", "bad", Map.of("orderId", List.of("not", "a", "string"), "amount", "lots"),
				Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats("order-timeout").dead() == 1);
		DeadLetter letter = this.admin.deadLetters("order-timeout", 0, 10).get(0);
		assertThat(letter.id()).isEqualTo("bad");
		assertThat(letter.attempts()).isEqualTo(1);
		assertThat(letter.error()).contains("PayloadConversionException").contains("OrderTimeout");
		assertThat(this.listeners.timeouts).isEmpty();
	}

	@Test
	void aListenerNamesTheErrorHandlerThatDecidesItsFailures() {
		this.queue.schedule("declined", "d-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.listeners.handledByErrorHandler.size() == 1);
		assertThat(this.listeners.handledByErrorHandler).containsExactly("d-1: card declined");
		await().atMost(WAIT).until(() -> this.admin.stats("declined").inflight() == 0);
		assertThat(this.admin.stats("declined").dead()).isZero();
		assertThat(this.admin.stats("declined").waiting() + this.admin.stats("declined").ready()).isZero();
		assertThat(this.listeners.failures.get()).as("not retried").isEqualTo(1);
	}

	@Test
	void anInvalidPayloadIsDeadLetteredAtOnceByTheApplicationsValidator() {
		this.queue.schedule("validated", "ok", new Refund("r-1", 5), Duration.ZERO);
		this.queue.schedule("validated", "bad", new Refund("", -5), Duration.ZERO);
		await().atMost(WAIT).until(() -> this.admin.stats("validated").dead() == 1);
		await().atMost(WAIT).until(() -> this.listeners.refunds.size() == 1);
		assertThat(this.listeners.refunds).containsExactly(new Refund("r-1", 5));
		DeadLetter letter = this.admin.deadLetters("validated", 0, 10).get(0);
		assertThat(letter.id()).isEqualTo("bad");
		assertThat(letter.attempts()).as("not retried").isEqualTo(1);
		assertThat(letter.error()).contains("reference").contains("amount");
	}

	@Test
	void aListenerNamesASecondFactoryBuiltWithBootsDefaults() {
		DelayedListenerContainer slow = this.registry.getListenerContainer("audit");
		assertThat(slow).isNotNull();
		assertThat(slow.getTopic()).isEqualTo("audit-log");
		assertThat(slow.getContainerProperties().getShutdownTimeout()).as("the one setting changed").isEqualTo(Duration.ofSeconds(1));
		// the rest is Boot's: the backoff and poll settings of this test's properties, the default concurrency
		assertThat(((DefaultDeliveryErrorHandler) slow.getRegistration().options().errorHandler()).getBackOff().start().nextBackOff()).isBetween(15L, 25L);
		assertThat(slow.getRegistration().options().concurrency()).isEqualTo(4);
		DelayedListenerContainer plain = this.registry.getListenerContainerForTopic("batches");
		assertThat(plain.getContainerProperties().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(10));

		this.queue.schedule("audit-log", "entry", Duration.ZERO);
		await().atMost(WAIT).until(() -> this.listeners.audits.size() == 1);
	}

	@Test
	void aListenerThatDoesNotStartWithTheApplicationIsStartedThroughTheRegistry() {
		DelayedListenerContainer manual = this.registry.getListenerContainer("manual");
		assertThat(manual.isRunning()).isFalse();
		this.queue.schedule("manual-topic", "m-1", "x", Duration.ZERO);
		assertThat(this.registry.getListenerStates()).filteredOn((state) -> state.id().equals("manual"))
			.singleElement()
			.satisfies((state) -> assertThat(state.running()).isFalse());

		manual.start();
		try {
			await().atMost(WAIT).until(() -> this.listeners.manual.size() == 1);
		}
		finally {
			manual.stop();
		}
	}

	record OrderTimeout(String orderId, int amount) {
	}

	record Refund(@NotBlank String reference, @Positive int amount) {
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	@Import(Listeners.class)
	static class TestApplication {

		@Bean
		RedisServerLifecycle redisServerLifecycle() {
			return new RedisServerLifecycle(redis);
		}

		@Bean
		DeliveryErrorHandler declinedPayments(Listeners listeners) {
			return (message, failure) -> {
				listeners.handledByErrorHandler.add(message.id() + ": " + failure.getMessage());
				return FailureAction.acknowledge();
			};
		}

		@Bean
		DefaultDelayedListenerContainerFactory slowShutdownFactory(DelayedListenerContainerFactoryConfigurer configurer,
				RedisMessageStore store, PayloadConverter converter, WakeUpTimer scheduler) {
			DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(store,
					converter, scheduler);
			configurer.configure(factory);
			factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));
			return factory;
		}

		@Bean
		DeliveryErrorHandler unusedErrorHandler() {
			// a second one: no default error handler for the other listeners
			return (message, failure) -> FailureAction.deadLetter();
		}

	}

	@Component
	static class Listeners {

		final List<OrderTimeout> timeouts = new CopyOnWriteArrayList<>();

		final List<DeliveredMessage> timeoutMessages = new CopyOnWriteArrayList<>();

		final List<String> tenants = new CopyOnWriteArrayList<>();

		final List<List<OrderTimeout>> batches = new CopyOnWriteArrayList<>();

		final List<String> reminders = new CopyOnWriteArrayList<>();

		final AtomicInteger failures = new AtomicInteger();

		final List<String> handledByErrorHandler = new CopyOnWriteArrayList<>();

		final List<Refund> refunds = new CopyOnWriteArrayList<>();

		final List<String> audits = new CopyOnWriteArrayList<>();

		final List<String> manual = new CopyOnWriteArrayList<>();

		void clear() {
			this.refunds.clear();
			this.audits.clear();
			this.manual.clear();
			this.handledByErrorHandler.clear();
			this.timeouts.clear();
			this.timeoutMessages.clear();
			this.tenants.clear();
			this.batches.clear();
			this.reminders.clear();
			this.failures.set(0);
		}

		@DelayedListener(topic = "order-timeout", maxAttempts = "5")
		void onTimeout(DeliveredMessage message, OrderTimeout timeout, @Header("tenant") String tenant) {
			this.timeoutMessages.add(message);
			this.timeouts.add(timeout);
			this.tenants.add(tenant);
		}

		@DelayedListener(topic = "batches")
		void onBatch(List<OrderTimeout> batch) {
			this.batches.add(batch);
		}

		@DelayedListener(topic = "${app.topics.reminder}", concurrency = "2")
		void onReminder(String reminder, @Header(DelayQueueHeaders.ATTEMPT) int attempt) {
			this.reminders.add(reminder + "#" + attempt);
		}

		@DelayedListener(topic = "declined", errorHandler = "declinedPayments")
		void onDeclined(String payload) {
			this.failures.incrementAndGet();
			throw new IllegalStateException("card declined");
		}

		@DelayedListener(topic = "validated")
		void onRefund(@Valid Refund refund) {
			this.refunds.add(refund);
		}

		@DelayedListener(id = "audit", topic = "audit-log", containerFactory = "slowShutdownFactory")
		void onAudit(String entry) {
			this.audits.add(entry);
		}

		@DelayedListener(id = "manual", topic = "manual-topic", autoStartup = "false")
		void onManual(String payload) {
			this.manual.add(payload);
		}

		@DelayedListener(topic = "failing", maxAttempts = "3")
		void onFailing(String payload) {
			this.failures.incrementAndGet();
			throw new IllegalStateException("always fails");
		}

	}

}
