/**
 * Spring Boot Actuator support on every Boot line: the {@code delayqueue} endpoint and the health check that each line's health indicator reports.
 */
@NullMarked
package io.github.delayqueue.actuate;

import org.jspecify.annotations.NullMarked;
