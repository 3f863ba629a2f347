package io.github.delayqueue.config;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The registry owns one container per listener: it makes them with their factory, finds them by id or topic, starts
 * and stops them together, and keeps an application to one listener per topic and per id.
 */
class DelayedListenerEndpointRegistryTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private final CountDownLatch release = new CountDownLatch(1);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private DefaultDelayedListenerContainerFactory factory;

	private DelayedListenerEndpointRegistry registry;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisFixture.Consumer consumer = this.fixture.consumer();
		this.queue = this.fixture.queue(consumer.store());
		this.factory = consumer.listeners().factory();
		this.registry = new DelayedListenerEndpointRegistry();
	}

	@AfterEach
	void tearDown() {
		this.release.countDown();
		this.registry.stop();
		this.fixture.close();
	}

	@Test
	void aListenerIsFoundByIdAndByTopicAndForgottenWhenUnregistered() {
		SimpleDelayedListenerEndpoint<String> endpoint = SimpleDelayedListenerEndpoint.of("invoices", String.class,
				new Recorder<>());
		endpoint.setId("invoice-listener");
		DelayedListenerContainer container = this.registry.registerListenerContainer(endpoint, this.factory);

		assertThat(this.registry.getListenerContainer("invoice-listener")).isSameAs(container);
		assertThat(this.registry.getListenerContainerForTopic("invoices")).isSameAs(container);
		assertThat(this.registry.getListenerContainerIds()).containsExactly("invoice-listener");
		assertThat(container.getId()).isEqualTo("invoice-listener");

		assertThat(this.registry.unregisterListenerContainer("invoice-listener")).isSameAs(container);
		assertThat(this.registry.getListenerContainer("invoice-listener")).isNull();
		assertThat(this.registry.getListenerContainerForTopic("invoices")).isNull();
		assertThat(this.registry.unregisterListenerContainer("invoice-listener")).isNull();
	}

	@Test
	void eachContainerGetsACopyOfItsFactorysPropertiesAndAnEndpointsAutoStartupWins() {
		this.factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(7));
		this.factory.getContainerProperties().setAutoStartup(false);
		DelayedListenerContainer first = this.registry.registerListenerContainer(
				SimpleDelayedListenerEndpoint.of("first", String.class, new Recorder<>()), this.factory);
		SimpleDelayedListenerEndpoint<String> eager = SimpleDelayedListenerEndpoint.of("eager", String.class,
				new Recorder<>());
		eager.setAutoStartup(true);
		DelayedListenerContainer second = this.registry.registerListenerContainer(eager, this.factory);
		this.factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(1));

		assertThat(first.getContainerProperties().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(7));
		assertThat(first.isAutoStartup()).isFalse();
		assertThat(second.isAutoStartup()).isTrue();
		assertThat(second.getContainerProperties()).isNotSameAs(first.getContainerProperties());
		assertThat(this.factory.getContainerProperties().isAutoStartup()).as("the template is not changed").isFalse();
	}

	@Test
	void aTakenTopicOrIdIsRejectedAndNothingIsRegistered() {
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("a", String.class, new Recorder<>()),
				this.factory);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.registry.registerListenerContainer(
					SimpleDelayedListenerEndpoint.of("a", String.class, new Recorder<>()), this.factory))
			.withMessageContaining("Topic 'a' already has the listener");
		SimpleDelayedListenerEndpoint<String> sameId = SimpleDelayedListenerEndpoint.of("b", String.class,
				new Recorder<>());
		sameId.setId("a");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.registry.registerListenerContainer(sameId, this.factory))
			.withMessageContaining("Listener id 'a' is taken");
		assertThat(this.registry.getListenerContainerIds()).containsExactly("a");
	}

	@Test
	void theRegistryStartsTheListenersThatStartAutomaticallyAndThoseAddedLaterOnlyIfAsked() {
		Recorder<String> auto = new Recorder<>();
		Recorder<String> manual = new Recorder<>();
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("auto", String.class, auto),
				this.factory);
		SimpleDelayedListenerEndpoint<String> manualEndpoint = SimpleDelayedListenerEndpoint.of("manual", String.class,
				manual);
		manualEndpoint.setAutoStartup(false);
		this.registry.registerListenerContainer(manualEndpoint, this.factory);
		this.registry.start();

		assertThat(this.registry.getListenerStates()).extracting(ListenerState::id, ListenerState::running)
			.containsExactly(org.assertj.core.groups.Tuple.tuple("auto", true),
					org.assertj.core.groups.Tuple.tuple("manual", false));
		DelayedListenerContainer later = this.registry.registerListenerContainer(
				SimpleDelayedListenerEndpoint.of("later", String.class, new Recorder<>()), this.factory, false);
		DelayedListenerContainer now = this.registry.registerListenerContainer(
				SimpleDelayedListenerEndpoint.of("now", String.class, new Recorder<>()), this.factory, true);
		assertThat(later.isRunning()).isFalse();
		assertThat(now.isRunning()).isTrue();

		this.queue.schedule("auto", "a-1", "x", Duration.ZERO);
		this.queue.schedule("manual", "m-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> auto.count("a-1") == 1);
		this.registry.getListenerContainer("manual").start();
		await().atMost(WAIT).until(() -> manual.count("m-1") == 1);
	}

	@Test
	void stopWithACallbackCallsItOnceEveryListenerHasStopped() throws InterruptedException {
		CountDownLatch started = new CountDownLatch(1);
		this.factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(10));
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("slow", String.class,
				(payload, message) -> {
					started.countDown();
					this.release.await();
				}), this.factory);
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("quick", String.class,
				new Recorder<>()), this.factory);
		this.registry.start();
		this.queue.schedule("slow", "s-1", "x", Duration.ZERO);
		assertThat(started.await(20, TimeUnit.SECONDS)).isTrue();

		CountDownLatch stopped = new CountDownLatch(1);
		this.registry.stop(stopped::countDown);
		assertThat(this.registry.isRunning()).isFalse();
		// the slow listener's handler still runs: no callback yet
		assertThat(stopped.await(300, TimeUnit.MILLISECONDS)).isFalse();
		this.release.countDown();
		assertThat(stopped.await(20, TimeUnit.SECONDS)).isTrue();
		assertThat(this.registry.getListenerContainers()).noneMatch(DelayedListenerContainer::isRunning);
		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "slow").isEmpty());
	}

	@Test
	void aListenerStoppedWithACallbackCanBeStartedAgainAtOnce() {
		Recorder<String> recorder = new Recorder<>();
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("restarted", String.class, recorder),
				this.factory);
		this.registry.start();
		CountDownLatch stopped = new CountDownLatch(1);
		this.registry.stop(stopped::countDown);
		this.registry.start();

		assertThat(this.registry.isRunning()).isTrue();
		assertThat(this.registry.getListenerContainer("restarted").isRunning()).isTrue();
		this.queue.schedule("restarted", "r-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> recorder.count("r-1") == 1);
		await().atMost(WAIT).until(() -> stopped.getCount() == 0);
		assertThat(this.registry.getListenerContainer("restarted").isRunning()).as("still running after the old run ended")
			.isTrue();
	}

	@Test
	void aListenerThatStopsItsOwnContainerIsAcknowledgedOnce() {
		java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
		this.factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(30));
		this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.of("kill-switch", String.class,
				(payload, message) -> {
					calls.incrementAndGet();
					long start = System.nanoTime();
					this.registry.stop();
					// returned at once: waiting for the running handlers would wait for this one
					assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
				}), this.factory);
		this.registry.start();
		this.queue.schedule("kill-switch", "k-1", "x", Duration.ZERO);

		await().atMost(WAIT).until(() -> RedisFixture.keysOf(redis.get(), "kill-switch").isEmpty());
		await().atMost(WAIT)
			.until(() -> !this.registry.getListenerContainer("kill-switch").isRunning()
					&& this.registry.getListenerContainer("kill-switch").getInFlight() == 0);
		assertThat(calls.get()).isEqualTo(1);
	}

}
