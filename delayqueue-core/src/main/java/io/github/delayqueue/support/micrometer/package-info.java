/**
 * Micrometer metrics and observations for delayqueue.
 */
@NullMarked
package io.github.delayqueue.support.micrometer;

import org.jspecify.annotations.NullMarked;
