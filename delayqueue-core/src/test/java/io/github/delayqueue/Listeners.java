package io.github.delayqueue;

import java.time.Duration;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.ListenerRegistration;

/**
 * A registry and the container factory its listeners are made with, as an application has them: tests register
 * {@link ListenerRegistration}s built in code, each run by a container of its own, started at once while the
 * registry runs.
 */
public final class Listeners {

	private final DefaultDelayedListenerContainerFactory factory;

	private final DelayedListenerEndpointRegistry registry = new DelayedListenerEndpointRegistry();

	Listeners(DefaultDelayedListenerContainerFactory factory) {
		this.factory = factory;
	}

	public DefaultDelayedListenerContainerFactory factory() {
		return this.factory;
	}

	public DelayedListenerEndpointRegistry registry() {
		return this.registry;
	}

	/** Registers a listener whose options are the registration's; started at once while the registry runs. */
	public DelayedListenerContainer register(ListenerRegistration<?> registration) {
		return this.registry.registerListenerContainer(SimpleDelayedListenerEndpoint.from(registration), this.factory,
				true);
	}

	/** Stops a topic's listener and forgets it. */
	public boolean unregister(String topic) {
		DelayedListenerContainer container = this.registry.getListenerContainerForTopic(topic);
		return container != null && this.registry.unregisterListenerContainer(container.getId()) != null;
	}

	public int getInFlight(String topic) {
		DelayedListenerContainer container = this.registry.getListenerContainerForTopic(topic);
		return (container != null) ? container.getInFlight() : 0;
	}

	/** Sets the shutdown timeout of the listeners registered from now on. */
	public void setShutdownTimeout(Duration timeout) {
		this.factory.getContainerProperties().setShutdownTimeout(timeout);
	}

	public void start() {
		this.registry.start();
	}

	public void stop() {
		this.registry.stop();
	}

	public void stop(Runnable callback) {
		this.registry.stop(callback);
	}

	public boolean isRunning() {
		return this.registry.isRunning();
	}

}
