package io.github.delayqueue.listener;

import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.scheduling.WakeUpTimer;

/**
 * What a container's consumer works with, as the container was configured when it started.
 *
 * @param store the Redis store
 * @param converter reads payloads as the listener's payload type
 * @param scheduler wakes the partitions when messages fall due
 * @param properties a copy of the container's properties, taken at start
 * @param isolation the listener's crash isolation, the same for all the container's runs
 */
record ConsumerContext(RedisMessageStore store, PayloadConverter converter, WakeUpTimer scheduler,
		ContainerProperties properties, CrashIsolation isolation) {
}
