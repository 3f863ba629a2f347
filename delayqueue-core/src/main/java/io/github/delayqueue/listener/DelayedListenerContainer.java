package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.TaskDecorator;
import org.springframework.util.Assert;

/**
 * Runs the handlers registered for topics. For each topic it claims due messages with a lease, runs the handler
 * on the topic's own threads, acknowledges successes in batches, extends the leases of running handlers, and
 * routes failures to retry with backoff or to the dead letters. Any number of containers, in any number of
 * applications, may consume the same topic: each message is claimed by one of them at a time.
 * <p>
 * Register handlers with {@link #register(ListenerRegistration)}, before or after {@link #start()}. On
 * {@link #stop()}, claiming stops, running handlers get the shutdown timeout, and what is still unfinished is
 * handed back to the queue at once, so another instance continues without waiting for the lease.
 *
 * <pre class="code">
 * container.register(ListenerRegistration.of("order-timeout", OrderTimeout.class,
 *     (timeout, message) -&gt; orders.cancelIfUnpaid(timeout.orderId())));
 * </pre>
 */
public class DelayedListenerContainer implements SmartLifecycle {

	/** The default lifecycle phase: late to start, early to stop. */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 100;

	/** The default time running handlers get to finish on stop. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final DelayedMessageScheduler scheduler;

	private final Map<String, TopicConsumer> consumers = new ConcurrentHashMap<>();

	private final Object lifecycleMonitor = new Object();

	private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	private ListenerOptions defaultOptions = ListenerOptions.defaults();

	private DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable DelayQueueListenerObservationConvention observationConvention;

	private @Nullable Executor taskExecutor;

	private @Nullable TaskDecorator taskDecorator;

	private int phase = DEFAULT_PHASE;

	private boolean autoStartup = true;

	private volatile boolean running;

	private @Nullable ContainerThreads threads;

	/**
	 * Creates a container.
	 * @param store the Redis store
	 * @param converter reads payloads as each registration's payload type
	 * @param scheduler wakes the container's topics when messages fall due
	 */
	public DelayedListenerContainer(RedisMessageStore store, PayloadConverter converter,
			DelayedMessageScheduler scheduler) {
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		Assert.notNull(scheduler, "DelayedMessageScheduler must not be null");
		this.store = store;
		this.converter = converter;
		this.scheduler = scheduler;
	}

	/**
	 * Registers a handler for a topic; if the container is running, the topic is consumed at once.
	 * @param registration the topic, payload type, handler and options
	 * @throws IllegalStateException if the topic has a handler in this container already
	 */
	public void register(ListenerRegistration<?> registration) {
		Assert.notNull(registration, "Registration must not be null");
		synchronized (this.lifecycleMonitor) {
			Assert.state(!this.consumers.containsKey(registration.topic()),
					() -> "Topic '" + registration.topic() + "' already has a listener in this container: "
							+ this.consumers.get(registration.topic()).registration().handler());
			TopicConsumer consumer = new TopicConsumer(registration, this.store, this.converter, this.scheduler,
					this.monitor, this.observationRegistry, this.observationConvention, this.taskExecutor,
					this.taskDecorator);
			ContainerThreads shared = this.threads;
			if (this.running && shared != null) {
				// if it cannot start, it is not registered
				consumer.start(shared.io(), shared.timer());
			}
			this.consumers.put(registration.topic(), consumer);
		}
	}

	/**
	 * Stops consuming a topic (gracefully, as {@link #stop()} does) and forgets its handler.
	 * @param topic the topic
	 * @return {@code true} if the topic had a handler
	 */
	public boolean unregister(String topic) {
		TopicConsumer consumer;
		synchronized (this.lifecycleMonitor) {
			consumer = this.consumers.remove(topic);
		}
		if (consumer == null) {
			return false;
		}
		consumer.stop(this.shutdownTimeout);
		return true;
	}

	/**
	 * The topics with a registered handler.
	 * @return the topics
	 */
	public Collection<String> getTopics() {
		return List.copyOf(this.consumers.keySet());
	}

	/**
	 * The registration for a topic.
	 * @param topic the topic
	 * @return the registration, or {@code null}
	 */
	public @Nullable ListenerRegistration<?> getRegistration(String topic) {
		TopicConsumer consumer = this.consumers.get(topic);
		return (consumer != null) ? consumer.registration() : null;
	}

	/**
	 * How many handlers of a topic are running now in this container.
	 * @param topic the topic
	 * @return the number of running handlers
	 */
	public int getInFlight(String topic) {
		TopicConsumer consumer = this.consumers.get(topic);
		return (consumer != null) ? consumer.inFlight() : 0;
	}

	/**
	 * Sets the monitor told about dispatched and handled messages (for metrics); applies to topics registered
	 * afterwards.
	 * @param monitor the monitor
	 */
	public void setMonitor(DelayQueueMonitor monitor) {
		Assert.notNull(monitor, "Monitor must not be null");
		this.monitor = monitor;
	}

	/**
	 * Sets the registry of the observation made around each handler call, which continues the trace stored in
	 * the message's headers at scheduling time; applies to topics registered afterwards.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "ObservationRegistry must not be null");
		this.observationRegistry = observationRegistry;
	}

	/**
	 * Sets a convention to name and tag the handler observation, instead of the default.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable DelayQueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * Sets the executor that runs handlers (a {@code TaskExecutor}, such as a {@code SimpleAsyncTaskExecutor} with
	 * virtual threads); applies to topics registered afterwards. Each topic still runs at most its concurrency at
	 * once. By default each topic has a pool of its own daemon threads named after it.
	 * @param taskExecutor the executor, or {@code null} for the default
	 */
	public void setTaskExecutor(@Nullable Executor taskExecutor) {
		this.taskExecutor = taskExecutor;
	}

	/**
	 * Sets a decorator that wraps the handling of each message, on its handler thread (to set up MDC or a security
	 * context around it, for instance); applies to topics registered afterwards.
	 * @param taskDecorator the decorator, or {@code null} for none
	 */
	public void setTaskDecorator(@Nullable TaskDecorator taskDecorator) {
		this.taskDecorator = taskDecorator;
	}

	/**
	 * The state of every registered listener, for monitoring.
	 * @return one state per topic, sorted by topic
	 */
	public List<ListenerState> getListenerStates() {
		return this.consumers.values()
			.stream()
			.map((consumer) -> new ListenerState(consumer.topic(), consumer.isActive(),
					consumer.registration().options().concurrency(), consumer.inFlight(), consumer.isClaimFailing()))
			.sorted(java.util.Comparator.comparing(ListenerState::topic))
			.toList();
	}

	/**
	 * The options that annotated listeners start from (their attributes override them).
	 * @return the default options
	 */
	public ListenerOptions getDefaultOptions() {
		return this.defaultOptions;
	}

	/**
	 * Sets the options that annotated listeners start from.
	 * @param defaultOptions the default options
	 */
	public void setDefaultOptions(ListenerOptions defaultOptions) {
		Assert.notNull(defaultOptions, "Default options must not be null");
		this.defaultOptions = defaultOptions;
	}

	/**
	 * Sets how long running handlers may take to finish on stop before their messages are handed back.
	 * @param shutdownTimeout zero or more
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		Assert.isTrue(shutdownTimeout != null && !shutdownTimeout.isNegative(),
				() -> "Shutdown timeout must not be negative, but was " + shutdownTimeout);
		this.shutdownTimeout = shutdownTimeout;
	}

	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			ContainerThreads shared = new ContainerThreads();
			List<TopicConsumer> started = new ArrayList<>();
			try {
				for (TopicConsumer consumer : this.consumers.values()) {
					consumer.start(shared.io(), shared.timer());
					started.add(consumer);
				}
			}
			catch (RuntimeException ex) {
				// nothing stays half-started: the topics started so far are stopped again
				started.forEach((consumer) -> consumer.stop(this.shutdownTimeout));
				shared.shutdownNow();
				throw ex;
			}
			this.threads = shared;
			this.running = true;
		}
	}

	@Override
	public void stop() {
		List<TopicConsumer> stopping;
		ContainerThreads shared;
		synchronized (this.lifecycleMonitor) {
			if (!this.running) {
				return;
			}
			this.running = false;
			stopping = new ArrayList<>(this.consumers.values());
			shared = this.threads;
			this.threads = null;
		}
		List<Thread> stoppers = new ArrayList<>();
		for (TopicConsumer consumer : stopping) {
			Thread stopper = new Thread(() -> consumer.stop(this.shutdownTimeout),
					"delayqueue-stop-" + consumer.topic());
			stopper.start();
			stoppers.add(stopper);
		}
		for (Thread stopper : stoppers) {
			try {
				stopper.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		if (shared != null) {
			shared.shutdown();
		}
	}

	/**
	 * Stops as {@link #stop()} does, on a thread of its own, then runs the callback: the application context stops
	 * this container alongside the other beans of its phase. The context waits for the callback only up to its
	 * timeout per shutdown phase (10 s in plain Spring, 30 s by default with Spring Boot): keep the
	 * {@link #setShutdownTimeout(Duration) shutdown timeout} well below it, or the context may close the Redis
	 * connection while unfinished messages are still being handed back (they are then redelivered when their
	 * lease ends).
	 * @param callback run once stopped
	 */
	@Override
	public void stop(Runnable callback) {
		Thread stopper = new Thread(() -> {
			try {
				stop();
			}
			finally {
				callback.run();
			}
		}, "delayqueue-stop");
		stopper.setDaemon(true);
		stopper.start();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return this.phase;
	}

	/**
	 * Sets the lifecycle phase.
	 * @param phase the phase; must be higher than the scheduler's
	 */
	public void setPhase(int phase) {
		this.phase = phase;
	}

	@Override
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * Sets whether the container starts with the application context.
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

}
