package io.github.delayqueue.actuate.health;

import io.github.delayqueue.actuate.DelayQueueHealth;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.Assert;

/**
 * The {@code delayqueue} health indicator of Spring Boot 4: {@link DelayQueueHealth} as a {@link Health}, down with
 * the error when Redis does not answer.
 *
 * @since 0.1.0
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {

	private final DelayQueueHealth health;

	/**
	 * Creates the indicator.
	 * @param health the check it reports
	 */
	public DelayQueueHealthIndicator(DelayQueueHealth health) {
		super("delayqueue health check failed");
		Assert.notNull(health, "DelayQueueHealth must not be null");
		this.health = health;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		DelayQueueHealth.Check check = this.health.check();
		builder.withDetails(check.details());
		if (check.up()) {
			builder.up();
		}
		else {
			builder.down();
		}
	}

}
