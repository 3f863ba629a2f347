/**
 * The storage layer's internals: its operations by job, the records they hand back, the stored format, the key
 * naming and the script calls. Public for the library's own modules (the queue, the listener container, the
 * recurring schedules, the auto-configuration, the dashboard, the test kit, the benchmarks and the fault suite), not
 * an API: any of it may change in any release. Applications use {@link io.github.delayqueue.redis.RedisMessageStore}.
 */
@NullMarked
package io.github.delayqueue.redis.internal;

import org.jspecify.annotations.NullMarked;
