/**
 * The dashboard's rates and lateness, read from Micrometer meters (only where the application has a meter
 * registry).
 */
@NullMarked
package io.github.delayqueue.dashboard.micrometer;

import org.jspecify.annotations.NullMarked;
