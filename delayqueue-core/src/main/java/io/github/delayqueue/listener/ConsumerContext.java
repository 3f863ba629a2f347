package io.github.delayqueue.listener;

import java.util.concurrent.Executor;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.DelayedMessageScheduler;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayQueueListenerObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.core.task.TaskDecorator;

/**
 * What a container's consumer works with, as the container was configured when it started.
 *
 * @param store the Redis store
 * @param converter reads payloads as the listener's payload type
 * @param scheduler wakes the partitions when messages fall due
 * @param monitor told about dispatched and handled messages
 * @param observationRegistry where handler calls are observed
 * @param observationConvention names and tags the handler observation, or {@code null} for the default
 * @param taskExecutor runs handlers, or {@code null} for a pool of the topic's own
 * @param taskDecorator wraps the handling of each message, or {@code null}
 */
record ConsumerContext(RedisMessageStore store, PayloadConverter converter, DelayedMessageScheduler scheduler,
		DelayQueueMonitor monitor, ObservationRegistry observationRegistry,
		@Nullable DelayQueueListenerObservationConvention observationConvention, @Nullable Executor taskExecutor,
		@Nullable TaskDecorator taskDecorator) {
}
