package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskDecorator;
import org.springframework.util.Assert;

/**
 * How a {@link DelayedListenerContainer} runs, apart from what its listener asks for in its
 * {@link ListenerOptions}: metrics and observation, the handler executor and task decorator, the shutdown timeout and
 * the lifecycle. A container factory holds one as the template of the containers it makes (each gets a copy); a
 * container reads its own when it starts, so a change applies from the next start.
 *
 * @since 1.0.0
 */
public final class ContainerProperties {

	/** The default lifecycle phase: late to start, early to stop. */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 100;

	/** The default time running handlers get to finish on stop. */
	public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

	private DelayQueueMonitor monitor = DelayQueueMonitor.NONE;

	private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	private @Nullable DelayQueueListenerObservationConvention observationConvention;

	private @Nullable Executor taskExecutor;

	private @Nullable TaskDecorator taskDecorator;

	private Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;

	private boolean autoStartup = true;

	private int phase = DEFAULT_PHASE;

	/**
	 * Creates properties with the defaults: no metrics, no observation, a pool of the container's own threads, a
	 * shutdown timeout of {@link #DEFAULT_SHUTDOWN_TIMEOUT}, started automatically in {@link #DEFAULT_PHASE}.
	 */
	public ContainerProperties() {
	}

	/**
	 * Creates a copy of other properties.
	 * @param other the properties to copy
	 */
	public ContainerProperties(ContainerProperties other) {
		copyFrom(other);
	}

	/**
	 * Takes every setting of other properties.
	 * @param other the properties to copy
	 */
	public void copyFrom(ContainerProperties other) {
		Assert.notNull(other, "ContainerProperties must not be null");
		this.monitor = other.monitor;
		this.observationRegistry = other.observationRegistry;
		this.observationConvention = other.observationConvention;
		this.taskExecutor = other.taskExecutor;
		this.taskDecorator = other.taskDecorator;
		this.shutdownTimeout = other.shutdownTimeout;
		this.autoStartup = other.autoStartup;
		this.phase = other.phase;
	}

	/**
	 * The monitor told about dispatched and handled messages.
	 * @return the monitor
	 */
	public DelayQueueMonitor getMonitor() {
		return this.monitor;
	}

	/**
	 * Sets the monitor told about dispatched and handled messages (for metrics).
	 * @param monitor the monitor
	 */
	public void setMonitor(DelayQueueMonitor monitor) {
		Assert.notNull(monitor, "Monitor must not be null");
		this.monitor = monitor;
	}

	/**
	 * The registry of the observation made around each handler call.
	 * @return the registry
	 */
	public ObservationRegistry getObservationRegistry() {
		return this.observationRegistry;
	}

	/**
	 * Sets the registry of the observation made around each handler call, which continues the trace stored in the
	 * message's headers at scheduling time.
	 * @param observationRegistry the registry
	 */
	public void setObservationRegistry(ObservationRegistry observationRegistry) {
		Assert.notNull(observationRegistry, "ObservationRegistry must not be null");
		this.observationRegistry = observationRegistry;
	}

	/**
	 * The convention that names and tags the handler observation.
	 * @return the convention, or {@code null} for the default
	 */
	public @Nullable DelayQueueListenerObservationConvention getObservationConvention() {
		return this.observationConvention;
	}

	/**
	 * Sets a convention to name and tag the handler observation, instead of the default.
	 * @param observationConvention the convention, or {@code null} for the default
	 */
	public void setObservationConvention(@Nullable DelayQueueListenerObservationConvention observationConvention) {
		this.observationConvention = observationConvention;
	}

	/**
	 * The executor that runs handlers.
	 * @return the executor, or {@code null} for a pool of the container's own
	 */
	public @Nullable Executor getTaskExecutor() {
		return this.taskExecutor;
	}

	/**
	 * Sets the executor that runs handlers (a {@code TaskExecutor}, such as a {@code SimpleAsyncTaskExecutor} with
	 * virtual threads). A container still runs at most its concurrency at once. By default each container has a
	 * pool of its own daemon threads named after its topic.
	 * @param taskExecutor the executor, or {@code null} for the default
	 */
	public void setTaskExecutor(@Nullable Executor taskExecutor) {
		this.taskExecutor = taskExecutor;
	}

	/**
	 * The decorator that wraps the handling of each message.
	 * @return the decorator, or {@code null} for none
	 */
	public @Nullable TaskDecorator getTaskDecorator() {
		return this.taskDecorator;
	}

	/**
	 * Sets a decorator that wraps the handling of each message, on its handler thread (to set up MDC or a security
	 * context around it, for instance).
	 * @param taskDecorator the decorator, or {@code null} for none
	 */
	public void setTaskDecorator(@Nullable TaskDecorator taskDecorator) {
		this.taskDecorator = taskDecorator;
	}

	/**
	 * How long running handlers may take to finish on stop.
	 * @return the shutdown timeout
	 */
	public Duration getShutdownTimeout() {
		return this.shutdownTimeout;
	}

	/**
	 * Sets how long running handlers may take to finish on stop before their messages are handed back (with that
	 * attempt counted, and as suspects: their handlers may still be running).
	 * @param shutdownTimeout zero or more
	 */
	public void setShutdownTimeout(Duration shutdownTimeout) {
		Assert.isTrue(shutdownTimeout != null && !shutdownTimeout.isNegative(),
				() -> "Shutdown timeout must not be negative, but was " + shutdownTimeout);
		this.shutdownTimeout = shutdownTimeout;
	}

	/**
	 * Whether a container starts with the application context (or with its registry).
	 * @return whether to start automatically
	 */
	public boolean isAutoStartup() {
		return this.autoStartup;
	}

	/**
	 * Sets whether a container starts with the application context (or with its registry).
	 * @param autoStartup whether to start automatically
	 */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * The lifecycle phase of a container that is a bean of its own.
	 * @return the phase
	 */
	public int getPhase() {
		return this.phase;
	}

	/**
	 * Sets the lifecycle phase, for a container that is a bean of its own; containers owned by a registry start and
	 * stop in the registry's phase.
	 * @param phase the phase; must be higher than the wake-up timer's
	 */
	public void setPhase(int phase) {
		this.phase = phase;
	}

	@Override
	public String toString() {
		return "ContainerProperties[monitor=" + this.monitor + ", observationRegistry=" + this.observationRegistry
				+ ", observationConvention=" + this.observationConvention + ", taskExecutor=" + this.taskExecutor
				+ ", taskDecorator=" + this.taskDecorator + ", shutdownTimeout=" + this.shutdownTimeout
				+ ", autoStartup=" + this.autoStartup + ", phase=" + this.phase + "]";
	}

}
