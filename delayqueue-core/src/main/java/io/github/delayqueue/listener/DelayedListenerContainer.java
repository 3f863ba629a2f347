package io.github.delayqueue.listener;

import java.time.Duration;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Runs one listener: claims its topic's due messages with a lease, runs the handler on the listener's own threads,
 * acknowledges, extends the leases of running handlers, and routes failures to the listener's
 * {@link DeliveryErrorHandler}. Any number of containers, in any number of applications, may consume the same topic:
 * each message is claimed by one of them at a time.
 * <p>
 * Containers are usually created by a container factory and owned by the listener endpoint registry
 * ({@code io.github.delayqueue.config}), which starts and stops them with the application context; a container can
 * also be created and started on its own. On {@link #stop()}, claiming stops, running handlers get the shutdown
 * timeout, and what is still unfinished is handed back to the queue at once, so another instance continues without
 * waiting for the lease. A container can be started again after it stopped.
 *
 * @since 0.1.0
 */
public class DelayedListenerContainer implements SmartLifecycle {

	/** The default lifecycle phase: late to start, early to stop. */
	public static final int DEFAULT_PHASE = ContainerProperties.DEFAULT_PHASE;

	/** The default time running handlers get to finish on stop. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = ContainerProperties.DEFAULT_SHUTDOWN_TIMEOUT;

	private final String id;

	private final ListenerRegistration<?> registration;

	private final RedisMessageStore store;

	private final PayloadConverter converter;

	private final WakeUpTimer wakeUpTimer;

	private final ContainerProperties properties;

	private int partitions = 1;

	private @Nullable DelayedQueueAdmin admin;

	private final ContainerRuns runs;

	/** The listener's crash isolation: one for all runs, so that a restart never starts a suspect beside the
	 * handlers a stopping run still finishes. */
	private final CrashIsolation isolation = new CrashIsolation();

	/**
	 * Creates a container for one listener.
	 * @param id the listener's id, unique in its registry
	 * @param registration the topic, payload type, handler and options
	 * @param store the Redis store
	 * @param converter reads payloads as the registration's payload type
	 * @param wakeUpTimer wakes the container when messages fall due
	 */
	public DelayedListenerContainer(String id, ListenerRegistration<?> registration, RedisMessageStore store,
			PayloadConverter converter, WakeUpTimer wakeUpTimer) {
		this(id, registration, store, converter, wakeUpTimer, new ContainerProperties());
	}

	/**
	 * Creates a container for one listener with the given properties (the container keeps a copy).
	 * @param id the listener's id, unique in its registry
	 * @param registration the topic, payload type, handler and options
	 * @param store the Redis store
	 * @param converter reads payloads as the registration's payload type
	 * @param wakeUpTimer wakes the container when messages fall due
	 * @param properties how it runs: metrics, observation, executor, shutdown timeout, lifecycle
	 */
	public DelayedListenerContainer(String id, ListenerRegistration<?> registration, RedisMessageStore store,
			PayloadConverter converter, WakeUpTimer wakeUpTimer, ContainerProperties properties) {
		Assert.notNull(properties, "ContainerProperties must not be null");
		Assert.hasText(id, "Listener id must not be empty");
		Assert.notNull(registration, "ListenerRegistration must not be null");
		Assert.notNull(store, "RedisMessageStore must not be null");
		Assert.notNull(converter, "PayloadConverter must not be null");
		Assert.notNull(wakeUpTimer, "WakeUpTimer must not be null");
		this.id = id;
		this.registration = registration;
		this.store = store;
		this.converter = converter;
		this.wakeUpTimer = wakeUpTimer;
		this.properties = new ContainerProperties(properties);
		this.runs = new ContainerRuns(registration.topic());
	}

	/**
	 * The listener's id.
	 * @return the id
	 */
	public String getId() {
		return this.id;
	}

	/**
	 * The topic this container consumes.
	 * @return the topic
	 */
	public String getTopic() {
		return this.registration.topic();
	}

	/**
	 * The topic, payload type, handler and options this container runs.
	 * @return the registration
	 */
	public ListenerRegistration<?> getRegistration() {
		return this.registration;
	}

	/**
	 * How many handlers are running now.
	 * @return the number of running handlers
	 */
	public int getInFlight() {
		return this.runs.inFlight();
	}

	/**
	 * The state of this listener, for monitoring.
	 * @return the state
	 */
	public ListenerState getListenerState() {
		ListenerOptions options = this.registration.options();
		return new ListenerState(this.id, getTopic(), this.runs.isActive(), options.concurrency(), this.runs.inFlight(),
				this.runs.batchSize(options.batchSize()), this.runs.prefetched(), this.runs.isClaimFailing());
	}

	/**
	 * How this container runs: metrics, observation, the handler executor and decorator, the shutdown timeout and
	 * the lifecycle. Changes apply from the next start.
	 * @return the container's own properties
	 */
	public ContainerProperties getContainerProperties() {
		return this.properties;
	}

	/**
	 * Sets how many partitions the topic has (its producers must use the same count; see
	 * {@link TopicPartitioning}); applies from the next start. The container claims from every
	 * partition, each woken on its own, with its concurrency shared between them fairly.
	 * @param partitions 1 to {@value TopicPartitioning#MAX_PARTITIONS}
	 */
	public void setPartitions(int partitions) {
		Assert.isTrue(partitions >= 1 && partitions <= TopicPartitioning.MAX_PARTITIONS,
				() -> "Partitions must be between 1 and " + TopicPartitioning.MAX_PARTITIONS
						+ ", but was " + partitions);
		this.partitions = partitions;
	}

	/**
	 * How many partitions the topic has.
	 * @return the partition count
	 */
	public int getPartitions() {
		return this.partitions;
	}

	/**
	 * Sets the admin through which {@link #pauseTopic()}, {@link #resumeTopic()} and {@link #isTopicPaused()} act on
	 * the topic (the application's {@link DelayedQueueAdmin}: the container factory sets its own). The admin is the
	 * one place that reaches every partition of a topic; the container only names its topic.
	 * @param admin the admin, or {@code null} for none (the topic-wide methods then throw)
	 * @since 1.0.0
	 */
	public void setAdmin(@Nullable DelayedQueueAdmin admin) {
		this.admin = admin;
	}

	/**
	 * The admin through which the topic-wide methods act, if one was set.
	 * @return the admin, or {@code null}
	 * @since 1.0.0
	 */
	public @Nullable DelayedQueueAdmin getAdmin() {
		return this.admin;
	}

	/**
	 * Pauses the topic on every instance, through the {@link #setAdmin(DelayedQueueAdmin) admin}
	 * ({@link DelayedQueueAdmin#pause(String)}): its state is kept in Redis, in every partition, so that no consumer
	 * of the topic leases a message until it is resumed (messages keep their due times; those in flight finish).
	 * Unlike {@link #stop()}, which stops this application's consumer only.
	 * @throws IllegalStateException if the container has no admin
	 * @since 1.0.0
	 */
	public void pauseTopic() {
		requireAdmin().pause(getTopic());
	}

	/**
	 * Resumes the topic on every instance, through the admin ({@link DelayedQueueAdmin#resume(String)}); what is due
	 * is delivered at once.
	 * @throws IllegalStateException if the container has no admin
	 * @since 1.0.0
	 */
	public void resumeTopic() {
		requireAdmin().resume(getTopic());
	}

	/**
	 * Whether the topic is paused on every instance (see {@link #pauseTopic()}), read through the admin
	 * ({@link DelayedQueueAdmin#controls(String)}).
	 * @return {@code true} if any partition is paused
	 * @throws IllegalStateException if the container has no admin
	 * @since 1.0.0
	 */
	public boolean isTopicPaused() {
		return requireAdmin().controls(getTopic()).paused();
	}

	private DelayedQueueAdmin requireAdmin() {
		DelayedQueueAdmin admin = this.admin;
		Assert.state(admin != null, () -> "Listener '" + this.id + "' has no DelayedQueueAdmin to pause or resume "
				+ "topic '" + getTopic() + "' with: set one on the container or its factory (Spring Boot does), or "
				+ "call the DelayedQueueAdmin's pause and resume");
		return admin;
	}

	/**
	 * Starts consuming. If a step fails, nothing stays half-started and the exception is thrown. A container that
	 * is still finishing the handlers of an earlier run (stopped with {@link #stop(Runnable)}) starts at once beside
	 * them: until they end, up to twice its concurrency may run.
	 */
	@Override
	public void start() {
		ListenerConsumer.Parts parts = new ListenerConsumer.Parts(this.store, this.converter, this.wakeUpTimer,
				new ContainerProperties(this.properties), this.isolation);
		this.runs.start(() -> new ListenerConsumer(this.registration, this.partitions, parts));
	}

	/**
	 * Stops claiming, gives running handlers the {@link ContainerProperties#setShutdownTimeout(Duration) shutdown timeout} to finish,
	 * then hands what is unfinished back to the queue; returns when done. Called from one of this container's own
	 * handlers, it returns at once and the handlers finish in the background (waiting would wait for the caller).
	 */
	@Override
	public void stop() {
		ContainerRuns.Run stopping = this.runs.detach();
		if (stopping == null) {
			return;
		}
		if (stopping.consumer().isHandlerThread()) {
			this.runs.drainInBackground(stopping, this.properties.getShutdownTimeout(), () -> {
			});
		}
		else {
			this.runs.drain(stopping, this.properties.getShutdownTimeout());
		}
	}

	/**
	 * Stops as {@link #stop()} does, but finishes on a thread of its own, then runs the callback: the application
	 * context stops this container alongside the other beans of its phase. Claiming stops before this returns, so
	 * the container may be started again at once. The context waits for the callback only up to its timeout per
	 * shutdown phase (10 s in plain Spring, 30 s by default with Spring Boot): keep the
	 * {@link ContainerProperties#setShutdownTimeout(Duration) shutdown timeout} well below it, or the context may close the Redis
	 * connection while unfinished messages are still being handed back (they are then redelivered when their
	 * lease ends).
	 * @param callback run once stopped
	 */
	@Override
	public void stop(Runnable callback) {
		ContainerRuns.Run stopping = this.runs.detach();
		if (stopping == null) {
			callback.run();
			return;
		}
		this.runs.drainInBackground(stopping, this.properties.getShutdownTimeout(), callback);
	}

	/**
	 * Whether the calling thread is running one of this container's handlers (a stop from there must not wait for
	 * the handlers to end).
	 * @return whether it is a handler thread of this container
	 */
	public boolean isHandlerThread() {
		return this.runs.isHandlerThread();
	}

	@Override
	public boolean isRunning() {
		return this.runs.isRunning();
	}

	@Override
	public int getPhase() {
		return this.properties.getPhase();
	}

	@Override
	public boolean isAutoStartup() {
		return this.properties.isAutoStartup();
	}

	@Override
	public String toString() {
		return "DelayedListenerContainer[id=" + this.id + ", topic=" + getTopic() + ", handler="
				+ this.registration.handler() + "]";
	}

}
