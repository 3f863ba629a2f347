/**
 * A Redis server for tests with no set-up: a Testcontainers {@code redis} container where a Docker engine answers, a
 * {@code redis-server} process otherwise, started once per JVM and stopped when the JVM ends.
 */
@NullMarked
package io.github.delayqueue.test.redis;

import org.jspecify.annotations.NullMarked;
