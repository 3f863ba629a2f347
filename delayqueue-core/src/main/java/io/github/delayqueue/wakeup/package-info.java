/**
 * Waking consumers at due times: {@link io.github.delayqueue.wakeup.WakeUpTimer} keeps one Netty
 * wheel-timer timeout per topic, armed from claim results and from each topic's wake channel, with a slow
 * fallback poll.
 */
@NullMarked
package io.github.delayqueue.wakeup;

import org.jspecify.annotations.NullMarked;
