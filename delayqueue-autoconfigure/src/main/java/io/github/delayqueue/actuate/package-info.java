/**
 * Spring Boot Actuator support: the {@code delayqueue} endpoint and health indicator.
 */
@NullMarked
package io.github.delayqueue.actuate;

import org.jspecify.annotations.NullMarked;
