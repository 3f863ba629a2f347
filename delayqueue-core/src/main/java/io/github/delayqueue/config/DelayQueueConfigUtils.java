package io.github.delayqueue.config;

/**
 * Names of the beans that listener infrastructure registers or looks up.
 *
 * @since 0.2.0
 */
public final class DelayQueueConfigUtils {

	/** The bean name of the post-processor that finds {@code @DelayedListener} methods. */
	public static final String DELAYED_LISTENER_ANNOTATION_PROCESSOR_BEAN_NAME = "io.github.delayqueue.config.internalDelayedListenerAnnotationProcessor";

	/** The bean name of the {@link DelayedListenerEndpointRegistry}. */
	public static final String DELAYED_LISTENER_ENDPOINT_REGISTRY_BEAN_NAME = "io.github.delayqueue.config.internalDelayedListenerEndpointRegistry";

	/** The bean name of the container factory that listeners use unless they name another. */
	public static final String DEFAULT_CONTAINER_FACTORY_BEAN_NAME = "delayedListenerContainerFactory";

	private DelayQueueConfigUtils() {
	}

}
