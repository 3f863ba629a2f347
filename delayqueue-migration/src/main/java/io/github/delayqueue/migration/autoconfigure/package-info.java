/**
 * Spring Boot wiring of the Redisson migration: properties, an {@code ApplicationRunner} that runs it once when
 * enabled, and a main class that runs it and exits. Not meant to be component-scanned.
 */
@NullMarked
package io.github.delayqueue.migration.autoconfigure;

import org.jspecify.annotations.NullMarked;
