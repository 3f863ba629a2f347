/**
 * A real Redis server for tests, on every machine: the one named by {@code DELAYQUEUE_TEST_REDIS_URL}, a
 * Testcontainers {@code redis:7} container where a Docker engine answers, or a {@code redis-server} process
 * (the binary that {@code org.signal:embedded-redis} ships, else one on the {@code PATH}).
 *
 * @see io.github.delayqueue.test.TestRedis
 * @see io.github.delayqueue.test.TestRedisExtension
 */
package io.github.delayqueue.test;
