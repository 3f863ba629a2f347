package io.github.delayqueue;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.Jackson2PayloadConverter;
import io.github.delayqueue.payload.JacksonPayloadConverter;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rolling upgrade from Spring Boot 3.5 to 4: instances of both lines at once on one topic, one writing payloads with
 * Jackson 2 ({@link Jackson2PayloadConverter}, as Boot 3.5's starter does), the other with Jackson 3
 * ({@link JacksonPayloadConverter}, Boot 4's). Each delivers and looks up what the other scheduled, and a topic both
 * consume delivers every message once, whoever scheduled it.
 */
class RollingUpgradeTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private RedisFixture fixture;

	private final List<Listeners> listeners = new ArrayList<>();

	private final List<WakeUpTimer> timers = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
	}

	@AfterEach
	void tearDown() {
		this.listeners.forEach(Listeners::stop);
		this.timers.forEach(WakeUpTimer::stop);
		this.fixture.close();
	}

	@Test
	void eachLineDeliversAndLooksUpWhatTheOtherScheduled() {
		Instance boot35 = instance(new Jackson2PayloadConverter());
		Instance boot4 = instance(new JacksonPayloadConverter());
		Map<String, Order> receivedByBoot4 = new ConcurrentHashMap<>();
		Map<String, Order> receivedByBoot35 = new ConcurrentHashMap<>();
		boot4.listeners().register(ListenerRegistration.of("from-boot35", Order.class,
				(order, message) -> receivedByBoot4.put(message.id(), order)));
		boot35.listeners().register(ListenerRegistration.of("from-boot4", Order.class,
				(order, message) -> receivedByBoot35.put(message.id(), order)));

		Map<String, Order> sent = new ConcurrentHashMap<>();
		for (int i = 0; i < 10; i++) {
			Order order = order(i);
			sent.put("o-" + i, order);
			boot35.queue().schedule("from-boot35", "o-" + i, order, Duration.ofMillis(100));
			boot4.queue().schedule("from-boot4", "o-" + i, order, Duration.ofMillis(100));
		}
		boot35.queue().schedule("from-boot35", "later", order(99), Duration.ofHours(1));

		await().atMost(WAIT).until(() -> receivedByBoot4.size() == 10 && receivedByBoot35.size() == 10);
		assertThat(receivedByBoot4).isEqualTo(sent);
		assertThat(receivedByBoot35).isEqualTo(sent);
		assertThat(boot4.admin().lookup("from-boot35", "later")).hasValueSatisfying(
				(info) -> assertThat(info.payload(Order.class)).isEqualTo(order(99)));
	}

	@Test
	void aTopicBothLinesConsumeDeliversEveryMessageOnceWhoeverScheduledIt() {
		Instance boot35 = instance(new Jackson2PayloadConverter());
		Instance boot4 = instance(new JacksonPayloadConverter());
		Map<String, Order> received = new ConcurrentHashMap<>();
		Set<String> twice = ConcurrentHashMap.newKeySet();
		for (Instance instance : List.of(boot35, boot4)) {
			instance.listeners().register(ListenerRegistration.of("shared", Order.class, (order, message) -> {
				if (received.put(message.id(), order) != null) {
					twice.add(message.id());
				}
			}));
		}
		Map<String, Order> sent = new ConcurrentHashMap<>();
		for (int i = 0; i < 40; i++) {
			Instance producer = (i % 2 == 0) ? boot35 : boot4;
			sent.put("s-" + i, order(i));
			producer.queue().schedule("shared", "s-" + i, order(i), Duration.ofMillis(50 + 10L * i));
		}
		await().atMost(WAIT).until(() -> received.size() == 40);
		assertThat(received).isEqualTo(sent);
		assertThat(twice).as("delivered twice").isEmpty();
	}

	private Instance instance(PayloadConverter converter) {
		LettuceConnectionFactory connectionFactory = this.fixture.connectionFactory();
		RedisMessageStore store = this.fixture.store(connectionFactory);
		WakeUpTimer timer = new WakeUpTimer(connectionFactory, Duration.ofMillis(5), Duration.ofMillis(200));
		DefaultDelayedListenerContainerFactory containerFactory = new DefaultDelayedListenerContainerFactory(store,
				converter, timer);
		containerFactory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(2));
		RedisDelayedQueueAdmin admin = new RedisDelayedQueueAdmin(store, converter);
		containerFactory.setAdmin(admin);
		Listeners instanceListeners = new Listeners(containerFactory);
		timer.start();
		instanceListeners.start();
		this.timers.add(timer);
		this.listeners.add(instanceListeners);
		return new Instance(new RedisDelayedQueue(store, converter), admin, instanceListeners);
	}

	private static Order order(int i) {
		return new Order("order-" + i, new BigDecimal(i + ".50"), List.of("book", "pen " + i), Status.OPEN,
				Map.of("tenant", "acme", "note", "grüße \"" + i + "\""));
	}

	enum Status {

		OPEN, PAID

	}

	record Order(String id, BigDecimal total, List<String> items, Status status, Map<String, String> labels) {
	}

	private record Instance(RedisDelayedQueue queue, RedisDelayedQueueAdmin admin, Listeners listeners) {
	}

}
