/**
 * Annotation-driven listeners: {@link io.github.delayqueue.annotation.DelayedListener} on a bean method, enabled
 * by {@link io.github.delayqueue.annotation.EnableDelayedListeners} (which Spring Boot's auto-configuration
 * applies).
 */
@NullMarked
package io.github.delayqueue.annotation;

import org.jspecify.annotations.NullMarked;
