package io.github.delayqueue.actuate.health;

import io.github.delayqueue.actuate.DelayQueueHealth;

import org.springframework.boot.actuate.health.AbstractHealthIndicator;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;

/**
 * The {@code delayqueue} health indicator of Spring Boot 3.5 (Actuator's health API):
 * {@link DelayQueueHealth}'s outcome as a {@link Health}, down with the error when Redis does not answer.
 *
 * @since 1.0.0
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {

	private final DelayQueueHealth check;

	/**
	 * Creates the indicator.
	 * @param check the check it reports
	 */
	public DelayQueueHealthIndicator(DelayQueueHealth check) {
		super("delayqueue health check failed");
		this.check = check;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		DelayQueueHealth.Check outcome = this.check.check();
		builder.status(outcome.up() ? Status.UP : Status.DOWN).withDetails(outcome.details());
	}

}
