/**
 * Invoking annotated listener methods through Spring Messaging's argument resolution.
 */
@NullMarked
package io.github.delayqueue.listener.adapter;

import org.jspecify.annotations.NullMarked;
