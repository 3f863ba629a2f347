/**
 * Our own build's Redis servers for tests, on every machine: the one named by {@code DELAYQUEUE_TEST_REDIS_URL}, a
 * Testcontainers {@code redis:7} container where a Docker engine answers, or a {@code redis-server} process (the
 * binary that {@code org.signal:embedded-redis} ships, else one on the {@code PATH}); a Redis Cluster and Sentinels of
 * such processes. Not published: applications test their listeners with {@code delayqueue-test}.
 *
 * @see io.github.delayqueue.build.redis.TestRedis
 * @see io.github.delayqueue.build.redis.TestRedisExtension
 */
package io.github.delayqueue.build.redis;
