package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.Listeners;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Handlers run on the container's executor when it has one, at most the listener's concurrency at once, each run
 * wrapped by the task decorator.
 */
class HandlerThreadsTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore queueStore = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(queueStore);
		this.admin = this.fixture.admin(queueStore);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	@Test
	void handlersRunOnTheContainersExecutorWithinTheConcurrencyAndDecorated() {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("custom-handler-");
		Listeners container = this.fixture.consumer(this.fixture.connectionFactory(), (c) -> {
			c.getContainerProperties().setTaskExecutor(executor);
			c.getContainerProperties().setTaskDecorator((runnable) -> () -> {
				CONTEXT.set("decorated");
				try {
					runnable.run();
				}
				finally {
					CONTEXT.remove();
				}
			});
		}).listeners();
		Set<String> threadNames = ConcurrentHashMap.newKeySet();
		Set<String> contexts = ConcurrentHashMap.newKeySet();
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		AtomicInteger handled = new AtomicInteger();
		// handlers meet in threes: each group waits until three run at once (a fourth would break the bound)
		CyclicBarrier threeAtOnce = new CyclicBarrier(3);
		container.register(ListenerRegistration.of("executor", String.class, (payload, message) -> {
			int now = running.incrementAndGet();
			mostAtOnce.accumulateAndGet(now, Math::max);
			threadNames.add(Thread.currentThread().getName());
			contexts.add(String.valueOf(CONTEXT.get()));
			threeAtOnce.await(10, TimeUnit.SECONDS);
			running.decrementAndGet();
			handled.incrementAndGet();
		}, ListenerOptions.builder().concurrency(3).build()));
		for (int i = 0; i < 30; i++) {
			this.queue.schedule("executor", "e-" + i, "x", Duration.ZERO);
		}
		await().atMost(WAIT).until(() -> handled.get() == 30);
		assertThat(threadNames).allSatisfy((name) -> assertThat(name).startsWith("custom-handler-"));
		assertThat(contexts).containsExactly("decorated");
		assertThat(mostAtOnce.get()).as("the concurrency, never more").isEqualTo(3);
	}

	@Test
	void stopWaitsForHandlersOnASharedExecutorAndHandsBackWhatOutlivesTheTimeout() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		RedisFixture.Consumer consumer = this.fixture.consumer(this.fixture.connectionFactory(),
				(c) -> c.getContainerProperties().setTaskExecutor(new SimpleAsyncTaskExecutor("shared-")));
		consumer.listeners().setShutdownTimeout(Duration.ofMillis(300));
		AtomicInteger interrupted = new AtomicInteger();
		consumer.listeners().register(ListenerRegistration.of("shared", String.class, (payload, message) -> {
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				interrupted.incrementAndGet();
				throw ex;
			}
		}));
		this.queue.schedule("shared", "s-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> consumer.listeners().getInFlight("shared") == 1);
		consumer.listeners().stop();
		// interrupted after the timeout (the handler's thread sees it on its own time), the handler failed: its
		// message waits for its retry
		await().atMost(WAIT).until(() -> interrupted.get() == 1);
		await().atMost(WAIT).until(() -> this.admin.stats("shared").inflight() == 0);
		TopicStats stats = this.admin.stats("shared");
		assertThat(stats.ready() + stats.waiting()).as("back in the queue").isEqualTo(1);
		assertThat(stats.retrying()).as("its interrupted run counted").isEqualTo(1);
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21")
	void handlersCanRunOnVirtualThreads() throws Exception {
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("virtual-");
		executor.setVirtualThreads(true);
		Listeners container = this.fixture
			.consumer(this.fixture.connectionFactory(), (c) -> c.getContainerProperties().setTaskExecutor(executor))
			.listeners();
		List<Boolean> virtual = new java.util.concurrent.CopyOnWriteArrayList<>();
		container.register(ListenerRegistration.of("virtual", String.class,
				(payload, message) -> virtual.add((Boolean) Thread.class.getMethod("isVirtual")
					.invoke(Thread.currentThread()))));
		this.queue.schedule("virtual", "v-1", "x", Duration.ZERO);
		await().atMost(WAIT).until(() -> virtual.size() == 1);
		assertThat(virtual).containsExactly(true);
	}

}
