package io.github.delayqueue.config;

import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import org.jspecify.annotations.Nullable;

/**
 * One listener, as a container factory sees it: its id and topic, whether it starts with the application, and the
 * handler and options it runs with.
 *
 * @see MethodDelayedListenerEndpoint
 * @see SimpleDelayedListenerEndpoint
 * @since 0.2.0
 */
public interface DelayedListenerEndpoint {

	/**
	 * The listener's id, unique in its registry.
	 * @return the id
	 */
	String getId();

	/**
	 * The topic the listener consumes.
	 * @return the topic
	 */
	String getTopic();

	/**
	 * Whether the listener starts with the application.
	 * @return the setting, or {@code null} for the container factory's
	 */
	@Nullable Boolean getAutoStartup();

	/**
	 * The handler and the options it runs with.
	 * @param defaults the container factory's default options, which the endpoint's own settings override
	 * @return the registration
	 */
	ListenerRegistration<?> createRegistration(ListenerOptions defaults);

}
