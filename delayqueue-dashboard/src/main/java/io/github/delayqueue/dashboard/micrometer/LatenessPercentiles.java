package io.github.delayqueue.dashboard.micrometer;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;

/**
 * Gives the {@code delayqueue.lateness} timer client-side p50 and p99 percentiles (unless the application configured
 * percentiles of its own), so that the dashboard shows them with any registry: the timer's percentile histogram
 * has no buckets in registries that do not aggregate percentiles, such as Spring Boot's default simple registry.
 * Micrometer keeps them over a moving window of a few minutes, for this instance.
 *
 * @since 1.0.0
 */
public class LatenessPercentiles implements MeterFilter {

	/** The timer it configures. */
	public static final String LATENESS = "delayqueue.lateness";

	private static final DistributionStatisticConfig PERCENTILES = DistributionStatisticConfig.builder()
		.percentiles(0.5, 0.99)
		.build();

	@Override
	public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
		if (!LATENESS.equals(id.getName())) {
			return config;
		}
		double[] percentiles = config.getPercentiles();
		return (percentiles == null || percentiles.length == 0) ? PERCENTILES.merge(config) : config;
	}

}
