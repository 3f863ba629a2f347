/**
 * Auto-configuration of delayqueue's health indicator on Spring Boot 4. Not meant to be component-scanned.
 */
@NullMarked
package io.github.delayqueue.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
