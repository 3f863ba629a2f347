package io.github.delayqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Import;

/**
 * Enables {@link DelayedListener} methods: registers the post-processor that finds them and the
 * {@link io.github.delayqueue.config.DelayedListenerEndpointRegistry} that runs a container for each, made by the
 * {@link io.github.delayqueue.config.DelayedListenerContainerFactory} bean named
 * {@code delayedListenerContainerFactory} (or the one a listener names). Spring Boot's auto-configuration applies
 * it and provides the factory; without Boot, declare a
 * {@link io.github.delayqueue.config.DefaultDelayedListenerContainerFactory} bean of that name.
 *
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(DelayedListenerBootstrapConfiguration.class)
public @interface EnableDelayedListeners {

}
