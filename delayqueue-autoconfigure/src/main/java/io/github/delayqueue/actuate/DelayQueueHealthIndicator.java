package io.github.delayqueue.actuate;

import java.util.List;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.ListenerState;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of delayqueue: {@code DOWN} when Redis does not answer, when the wake-channel subscription of a running
 * wake-up timer with listeners is lost, or when a listener's claims fail; otherwise {@code UP}, with the listeners'
 * states as details.
 *
 * @since 0.1.0
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {

	private final DelayedQueueAdmin admin;

	private final @Nullable WakeUpTimer wakeUpTimer;

	private final @Nullable DelayedListenerEndpointRegistry registry;

	/**
	 * Creates the indicator.
	 * @param admin used to check that Redis answers
	 * @param wakeUpTimer the wake-up timer, if any
	 * @param registry the registry of the listener containers, if any
	 */
	public DelayQueueHealthIndicator(DelayedQueueAdmin admin, @Nullable WakeUpTimer wakeUpTimer,
			@Nullable DelayedListenerEndpointRegistry registry) {
		super("delayqueue health check failed");
		this.admin = admin;
		this.wakeUpTimer = wakeUpTimer;
		this.registry = registry;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		this.admin.knownTopics();
		List<ListenerState> listeners = (this.registry != null) ? this.registry.getListenerStates() : List.of();
		boolean subscriptionNeeded = this.wakeUpTimer != null && this.wakeUpTimer.isRunning() && !listeners.isEmpty();
		boolean subscribed = subscriptionNeeded && this.wakeUpTimer.isSubscribed();
		List<String> failing = listeners.stream().filter(ListenerState::claimFailing).map(ListenerState::topic).toList();
		builder.withDetail("listeners", listeners);
		if (subscriptionNeeded) {
			builder.withDetail("wakeSubscription", subscribed ? "subscribed" : "lost");
		}
		if (!failing.isEmpty()) {
			builder.down().withDetail("failingTopics", failing);
		}
		else if (subscriptionNeeded && !subscribed) {
			builder.down();
		}
		else {
			builder.up();
		}
	}

}
