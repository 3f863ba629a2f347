/**
 * Listener infrastructure: an endpoint describes one listener (an annotated method, or a handler built in code), a
 * {@link io.github.delayqueue.config.DelayedListenerContainerFactory} makes its container, and the
 * {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry} owns the containers, starts and stops them with
 * the application and looks them up by listener id or topic. The
 * {@link io.github.delayqueue.config.DelayedListenerEndpointRegistrar} collects the endpoints of
 * {@code @DelayedListener} methods until the registry is ready.
 */
@NullMarked
package io.github.delayqueue.config;

import org.jspecify.annotations.NullMarked;
