/**
 * Spring Boot 4's health indicator for delayqueue.
 */
@NullMarked
package io.github.delayqueue.actuate.health;

import org.jspecify.annotations.NullMarked;
