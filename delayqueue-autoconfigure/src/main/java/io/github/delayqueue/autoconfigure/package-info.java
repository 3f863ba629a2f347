/**
 * Spring Boot auto-configuration for delayqueue. Not meant to be component-scanned.
 */
@NullMarked
package io.github.delayqueue.autoconfigure;

import org.jspecify.annotations.NullMarked;
