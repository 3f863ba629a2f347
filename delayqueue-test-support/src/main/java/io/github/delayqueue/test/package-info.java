/**
 * Testing an application's delayed listeners: {@link io.github.delayqueue.test.DelayQueueTester} moves time forward
 * on the Redis clock for a topic, fires a message now, waits until a topic is idle and tells what the listeners
 * received, recorded by a {@link io.github.delayqueue.test.ListenerRecorder}. With Spring Boot, the
 * {@code @DelayQueueTest} slice and the {@code @AutoConfigure...} annotations of
 * {@link io.github.delayqueue.test.autoconfigure} set them up.
 */
@NullMarked
package io.github.delayqueue.test;

import org.jspecify.annotations.NullMarked;
