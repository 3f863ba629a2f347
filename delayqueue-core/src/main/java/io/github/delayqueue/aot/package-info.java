/**
 * Ahead-of-time support: the hints a GraalVM native image of an application using delayqueue needs.
 */
@NullMarked
package io.github.delayqueue.aot;

import org.jspecify.annotations.NullMarked;
