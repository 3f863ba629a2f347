package io.github.delayqueue.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.listener.ListenerState;
import io.github.delayqueue.wakeup.WakeUpTimer;
import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * The health of delayqueue, whatever the Spring Boot line: down when Redis does not answer, when the wake-channel
 * subscription of a running wake-up timer with listeners is lost, or when a listener's claims fail; otherwise up,
 * with the listeners' states as details. Each line's {@code DelayQueueHealthIndicator} reports it as a
 * {@code Health}.
 *
 * @since 1.0.0
 */
public final class DelayQueueHealth {

	private final DelayedQueueAdmin admin;

	private final @Nullable WakeUpTimer wakeUpTimer;

	private final @Nullable DelayedListenerEndpointRegistry registry;

	/**
	 * Creates the check.
	 * @param admin used to check that Redis answers
	 * @param wakeUpTimer the wake-up timer, if any
	 * @param registry the registry of the listener containers, if any
	 */
	public DelayQueueHealth(DelayedQueueAdmin admin, @Nullable WakeUpTimer wakeUpTimer,
			@Nullable DelayedListenerEndpointRegistry registry) {
		Assert.notNull(admin, "DelayedQueueAdmin must not be null");
		this.admin = admin;
		this.wakeUpTimer = wakeUpTimer;
		this.registry = registry;
	}

	/**
	 * Checks: asks Redis, then reads the listeners' and the wake-up timer's states.
	 * @return the outcome
	 * @throws RuntimeException if Redis does not answer (the indicator reports it as down, with the error)
	 */
	public Check check() {
		this.admin.knownTopics();
		List<ListenerState> listeners = (this.registry != null) ? this.registry.getListenerStates() : List.of();
		WakeUpTimer timer = this.wakeUpTimer;
		boolean subscriptionNeeded = timer != null && timer.isRunning() && !listeners.isEmpty();
		boolean subscribed = subscriptionNeeded && timer.isSubscribed();
		List<String> failing = listeners.stream().filter(ListenerState::claimFailing).map(ListenerState::topic).toList();
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("listeners", listeners);
		if (subscriptionNeeded) {
			details.put("wakeSubscription", subscribed ? "subscribed" : "lost");
		}
		if (!failing.isEmpty()) {
			details.put("failingTopics", failing);
		}
		return new Check(failing.isEmpty() && (!subscriptionNeeded || subscribed), Map.copyOf(details));
	}

	/**
	 * What a check found.
	 *
	 * @param up whether delayqueue is healthy
	 * @param details the listeners' states ({@code listeners}), the wake subscription's ({@code wakeSubscription}) when
	 * it is needed, and the topics whose claims fail ({@code failingTopics}), if any
	 */
	public record Check(boolean up, Map<String, Object> details) {
	}

}
