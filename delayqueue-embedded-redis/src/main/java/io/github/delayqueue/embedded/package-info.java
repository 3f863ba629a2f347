/**
 * A {@code redis-server} process on a loopback port, for tests and for the sample application's "no Redis
 * installed" default. Not for production.
 */
package io.github.delayqueue.embedded;
