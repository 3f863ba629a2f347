/**
 * Spring Boot auto-configuration of the delayqueue dashboard ({@code delayqueue.dashboard.*}). Not meant to be
 * component-scanned.
 */
@NullMarked
package io.github.delayqueue.dashboard.autoconfigure;

import org.jspecify.annotations.NullMarked;
