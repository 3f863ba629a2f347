package io.github.delayqueue.scheduling;

import java.time.Duration;

import io.github.delayqueue.wakeup.WakeUpTimer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The wake-up timer under its 0.2 name.
 *
 * @since 0.1.0
 * @deprecated since 0.3.0 for removal in 0.4: it is a wake-up timer, not a scheduler; use {@link WakeUpTimer} (package {@code io.github.delayqueue.wakeup})
 */
@Deprecated(since = "0.3.0", forRemoval = true)
public class DelayedMessageScheduler extends WakeUpTimer {

	/**
	 * Creates a timer with the default tick and poll interval.
	 * @param connectionFactory the Redis connection factory for the wake-channel subscription
	 */
	public DelayedMessageScheduler(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	/**
	 * Creates a timer.
	 * @param connectionFactory the Redis connection factory for the wake-channel subscription
	 * @param tick the wheel timer's tick, at least 1 ms: the precision of wake-ups
	 * @param pollInterval how often every topic is polled as a fallback
	 */
	public DelayedMessageScheduler(RedisConnectionFactory connectionFactory, Duration tick, Duration pollInterval) {
		super(connectionFactory, tick, pollInterval);
	}

}
