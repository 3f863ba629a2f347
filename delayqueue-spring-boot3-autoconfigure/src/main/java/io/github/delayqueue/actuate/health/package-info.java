/**
 * Spring Boot 3.5's health indicator for delayqueue.
 */
@NullMarked
package io.github.delayqueue.actuate.health;

import org.jspecify.annotations.NullMarked;
