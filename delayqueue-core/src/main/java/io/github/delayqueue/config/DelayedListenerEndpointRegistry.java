package io.github.delayqueue.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerState;
import io.github.delayqueue.redis.internal.TopicKeys;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.util.Assert;

/**
 * Owns the listener containers of an application: makes one per endpoint with the endpoint's container factory,
 * starts those that start automatically with the application, stops them all (in parallel) when it stops, and
 * looks them up by listener id or by topic. An application has one listener per topic and one per id.
 * <p>
 * The containers are not beans; reach them here. A container registered while the registry runs is started at
 * once if asked to ({@code startImmediately}) and if it starts automatically.
 *
 * @since 0.2.0
 */
public class DelayedListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

	/** Read without a lock (lookups from health checks and handlers never wait for a start or stop). */
	private final Map<String, DelayedListenerContainer> containers = new ConcurrentHashMap<>();

	private final Object lifecycleMonitor = new Object();

	private int phase = DelayedListenerContainer.DEFAULT_PHASE;

	private volatile boolean running;

	/**
	 * Makes a container for an endpoint and registers it, without starting it.
	 * @param endpoint the endpoint
	 * @param factory the factory that makes its container
	 * @return the container
	 * @throws IllegalStateException if the endpoint's id or topic has a listener already
	 */
	public DelayedListenerContainer registerListenerContainer(DelayedListenerEndpoint endpoint,
			DelayedListenerContainerFactory factory) {
		return registerListenerContainer(endpoint, factory, false);
	}

	/**
	 * Makes a container for an endpoint and registers it; starts it if the registry is running,
	 * {@code startImmediately} is set and the container starts automatically. If it cannot start, it is not
	 * registered.
	 * @param endpoint the endpoint
	 * @param factory the factory that makes its container
	 * @param startImmediately whether to start it now if the registry is running
	 * @return the container
	 * @throws IllegalStateException if the endpoint's id or topic has a listener already
	 */
	public DelayedListenerContainer registerListenerContainer(DelayedListenerEndpoint endpoint,
			DelayedListenerContainerFactory factory, boolean startImmediately) {
		Assert.notNull(endpoint, "Endpoint must not be null");
		Assert.notNull(factory, "Container factory must not be null");
		DelayedListenerContainer container;
		boolean start;
		synchronized (this.lifecycleMonitor) {
			DelayedListenerContainer sameTopic = findByTopic(endpoint.getTopic());
			Assert.state(sameTopic == null, () -> "Topic '" + endpoint.getTopic() + "' already has the listener "
					+ sameTopic + "; an application has one listener per topic (or per subscription)");
			// a topic with subscriptions delivers to them alone: a listener of the topic itself would receive nothing
			DelayedListenerContainer other = findOtherKind(endpoint.getTopic());
			Assert.state(other == null, () -> "Topic '" + TopicKeys.topicOf(endpoint.getTopic())
					+ "' has the listener " + other + " " + describe(other.getTopic()) + ", and this one "
					+ describe(endpoint.getTopic()) + "; a topic with subscriptions delivers its messages to them "
					+ "alone, so give every listener of it a subscription");
			String id = endpoint.getId();
			DelayedListenerContainer sameId = this.containers.get(id);
			Assert.state(sameId == null, () -> "Listener id '" + id + "' is taken by " + sameId);
			container = factory.createListenerContainer(endpoint);
			start = startImmediately && this.running && container.isAutoStartup();
			this.containers.put(id, container);
		}
		if (start) {
			try {
				container.start();
			}
			catch (RuntimeException ex) {
				this.containers.remove(container.getId(), container);
				throw ex;
			}
		}
		return container;
	}

	/**
	 * Stops a listener (gracefully, as its container's {@code stop()} does: this waits for its running handlers, up
	 * to the shutdown timeout, unless called from one of them) and forgets it.
	 * @param id the listener's id
	 * @return its container, or {@code null} if there was none
	 */
	public @Nullable DelayedListenerContainer unregisterListenerContainer(String id) {
		DelayedListenerContainer container = this.containers.remove(id);
		if (container != null) {
			container.stop();
		}
		return container;
	}

	/**
	 * The container of a listener.
	 * @param id the listener's id
	 * @return the container, or {@code null}
	 */
	public @Nullable DelayedListenerContainer getListenerContainer(String id) {
		return this.containers.get(id);
	}

	/**
	 * The container that consumes a topic.
	 * @param topic the topic
	 * @return the container, or {@code null}
	 */
	public @Nullable DelayedListenerContainer getListenerContainerForTopic(String topic) {
		return findByTopic(topic);
	}

	/**
	 * Pauses a topic on every instance (state in Redis, every partition), through its container's admin (see
	 * {@link DelayedListenerContainer#pauseTopic()}); unlike {@link #stop()} or a container's stop, which stop this
	 * application's consumers only. To pause a topic this application does not listen to, use the
	 * {@code DelayedQueueAdmin}.
	 * @param topic a topic this application listens to
	 * @throws IllegalArgumentException if no listener consumes the topic here
	 * @throws IllegalStateException if its container has no admin
	 * @since 1.0.0
	 */
	public void pauseTopic(String topic) {
		containerFor(topic).pauseTopic();
	}

	/**
	 * Resumes a paused topic on every instance, through its container's admin; what is due is delivered at once.
	 * @param topic a topic this application listens to
	 * @throws IllegalArgumentException if no listener consumes the topic here
	 * @throws IllegalStateException if its container has no admin
	 * @since 1.0.0
	 */
	public void resumeTopic(String topic) {
		containerFor(topic).resumeTopic();
	}

	private DelayedListenerContainer containerFor(String topic) {
		DelayedListenerContainer container = findByTopic(topic);
		Assert.isTrue(container != null, () -> "No listener consumes topic '" + topic + "' in this application");
		return container;
	}

	/**
	 * The ids of the registered listeners.
	 * @return the ids
	 */
	public Set<String> getListenerContainerIds() {
		return Set.copyOf(this.containers.keySet());
	}

	/**
	 * The registered containers.
	 * @return the containers
	 */
	public Collection<DelayedListenerContainer> getListenerContainers() {
		return List.copyOf(this.containers.values());
	}

	/**
	 * The state of every listener, for monitoring.
	 * @return one state per listener, sorted by topic
	 */
	public List<ListenerState> getListenerStates() {
		return getListenerContainers().stream()
			.map(DelayedListenerContainer::getListenerState)
			.sorted(Comparator.comparing(ListenerState::topic))
			.toList();
	}

	/** A listener of the same topic, one of its subscriptions if {@code name} is the topic's, or the reverse. */
	private @Nullable DelayedListenerContainer findOtherKind(String name) {
		String topic = TopicKeys.topicOf(name);
		boolean subscribed = TopicKeys.subscriptionOf(name) != null;
		for (DelayedListenerContainer container : this.containers.values()) {
			String other = container.getTopic();
			if (TopicKeys.topicOf(other).equals(topic) && (TopicKeys.subscriptionOf(other) != null) != subscribed) {
				return container;
			}
		}
		return null;
	}

	private static String describe(String name) {
		String subscription = TopicKeys.subscriptionOf(name);
		return (subscription != null) ? "of its subscription '" + subscription + "'" : "of the topic itself";
	}

	private @Nullable DelayedListenerContainer findByTopic(String topic) {
		for (DelayedListenerContainer container : this.containers.values()) {
			if (container.getTopic().equals(topic)) {
				return container;
			}
		}
		return null;
	}

	/**
	 * Starts every container that starts automatically. If one cannot start, those started are stopped again and
	 * the exception is thrown.
	 */
	@Override
	public void start() {
		synchronized (this.lifecycleMonitor) {
			if (this.running) {
				return;
			}
			List<DelayedListenerContainer> started = new ArrayList<>();
			try {
				for (DelayedListenerContainer container : this.containers.values()) {
					if (container.isAutoStartup()) {
						container.start();
						started.add(container);
					}
				}
			}
			catch (RuntimeException ex) {
				stopAll(started);
				throw ex;
			}
			this.running = true;
		}
	}

	/**
	 * Stops every running container, all at once, and returns when all have stopped (at once if called from a
	 * handler of one of them: waiting would wait for the caller).
	 */
	@Override
	public void stop() {
		List<DelayedListenerContainer> stopping;
		synchronized (this.lifecycleMonitor) {
			this.running = false;
			stopping = List.copyOf(this.containers.values());
		}
		stopAll(stopping);
	}

	/**
	 * Stops every running container, all at once, and runs the callback when the last has stopped.
	 * @param callback run once all have stopped
	 */
	@Override
	public void stop(Runnable callback) {
		List<DelayedListenerContainer> stopping;
		synchronized (this.lifecycleMonitor) {
			this.running = false;
			stopping = this.containers.values().stream().filter(DelayedListenerContainer::isRunning).toList();
		}
		if (stopping.isEmpty()) {
			callback.run();
			return;
		}
		AtomicInteger remaining = new AtomicInteger(stopping.size());
		for (DelayedListenerContainer container : stopping) {
			container.stop(() -> {
				if (remaining.decrementAndGet() == 0) {
					callback.run();
				}
			});
		}
	}

	private static void stopAll(List<DelayedListenerContainer> containers) {
		boolean fromHandler = containers.stream().anyMatch(DelayedListenerContainer::isHandlerThread);
		List<DelayedListenerContainer> running = containers.stream().filter(DelayedListenerContainer::isRunning).toList();
		CountDownLatch stopped = new CountDownLatch(running.size());
		running.forEach((container) -> container.stop(stopped::countDown));
		if (fromHandler) {
			return;
		}
		try {
			// every container bounds its own wait by its shutdown timeout
			stopped.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
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
	 * @param phase the phase; must be higher than the wake-up timer's
	 */
	public void setPhase(int phase) {
		this.phase = phase;
	}

	/** Stops every container. */
	@Override
	public void destroy() {
		stop();
	}

}
