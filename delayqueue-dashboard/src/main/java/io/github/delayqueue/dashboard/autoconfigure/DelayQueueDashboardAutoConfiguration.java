package io.github.delayqueue.dashboard.autoconfigure;

import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueMetricsAutoConfiguration;
import io.github.delayqueue.dashboard.DueTimeline;
import io.github.delayqueue.dashboard.TopicActions;
import io.github.delayqueue.dashboard.TopicBrowser;
import io.github.delayqueue.dashboard.TopicMeterReader;
import io.github.delayqueue.dashboard.TopicSampler;
import io.github.delayqueue.dashboard.micrometer.LatenessPercentiles;
import io.github.delayqueue.dashboard.micrometer.MicrometerTopicMeterReader;
import io.github.delayqueue.dashboard.web.DashboardApiController;
import io.github.delayqueue.dashboard.web.DashboardPageController;
import io.github.delayqueue.dashboard.web.ReactiveDashboardApiController;
import io.github.delayqueue.dashboard.web.ReactiveDashboardPageController;
import io.github.delayqueue.recurring.RecurringSchedules;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Auto-configuration of the delayqueue dashboard: in a Spring MVC or Spring WebFlux application with a
 * {@link DelayedQueueAdmin} (the starter's), a page under {@code delayqueue.dashboard.path} and its JSON API, fed by
 * a background sampler. The two stacks share everything below their controllers (sampler, timeline, browser,
 * actions, the page's rendering); each gets its own controllers.
 * <p>
 * Writes follow {@code delayqueue.dashboard.access}, or else the {@code delayqueue} actuator endpoint's access
 * (read-only by default); the application's own security (Spring Security's authorisation and CSRF protection)
 * applies to the dashboard's paths like to any other.
 *
 * @since 1.0.0
 */
@AutoConfiguration(after = { DelayQueueAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class },
		afterName = {
				// Spring Boot 4
				"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
				// Spring Boot 3.5
				"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
				// both
				"org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration" })
@Conditional(DelayQueueDashboardAutoConfiguration.OnMvcOrWebFlux.class)
@ConditionalOnBean(DelayedQueueAdmin.class)
@ConditionalOnBooleanProperty(name = "delayqueue.dashboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DashboardProperties.class)
public final class DelayQueueDashboardAutoConfiguration {

	private static final String ACCESS_RESOLVER =
			"org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver";

	@Bean
	@ConditionalOnMissingBean
	TopicSampler delayQueueDashboardSampler(DelayedQueueAdmin admin, ObjectProvider<TopicMeterReader> meters,
			ObjectProvider<RecurringSchedules> recurring, DashboardProperties properties) {
		return new TopicSampler(admin, meters.getIfUnique(() -> TopicMeterReader.NONE), recurring.getIfUnique(),
				properties.getSampleInterval(), properties.getHistorySize(), properties.getMaxTopics());
	}

	@Bean
	@ConditionalOnMissingBean
	DueTimeline delayQueueDashboardTimeline(DelayedQueueAdmin admin, DashboardProperties properties) {
		return new DueTimeline(admin, properties.getTimeline().getBuckets());
	}

	@Bean
	@ConditionalOnMissingBean
	TopicBrowser delayQueueDashboardBrowser(DelayedQueueAdmin admin) {
		return new TopicBrowser(admin);
	}

	@Bean
	@ConditionalOnMissingBean
	TopicActions delayQueueDashboardActions(DelayedQueueAdmin admin, TopicSampler sampler,
			DashboardProperties properties, ConfigurableListableBeanFactory beanFactory, Environment environment) {
		return new TopicActions(admin, sampler, writable(properties, beanFactory, environment));
	}

	/** Unset, the dashboard's access is the delayqueue endpoint's: read-only unless opened (or without Actuator). */
	private static boolean writable(DashboardProperties properties, ConfigurableListableBeanFactory beanFactory,
			Environment environment) {
		DashboardProperties.Access access = properties.getAccess();
		if (access != null) {
			return access == DashboardProperties.Access.UNRESTRICTED;
		}
		return ClassUtils.isPresent(ACCESS_RESOLVER, beanFactory.getBeanClassLoader())
				&& ActuatorEndpointAccess.isUnrestricted(beanFactory, environment);
	}

	/** The page and the API on Spring MVC. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
	@ConditionalOnClass(DispatcherServlet.class)
	static class MvcConfiguration {

		@Bean
		@ConditionalOnMissingBean
		DashboardPageController delayQueueDashboardPageController(TopicSampler sampler, TopicActions actions,
				DashboardProperties properties) {
			return new DashboardPageController(sampler, actions, checkedPath(properties.getPath()));
		}

		@Bean
		@ConditionalOnMissingBean
		DashboardApiController delayQueueDashboardApiController(TopicSampler sampler, TopicBrowser browser,
				DueTimeline timeline, TopicActions actions) {
			return new DashboardApiController(sampler, browser, timeline, actions);
		}

	}

	/** The page and the API on Spring WebFlux: the same paths, the Redis calls off the event loop. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	@ConditionalOnClass(DispatcherHandler.class)
	static class WebFluxConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ReactiveDashboardPageController delayQueueDashboardPageController(TopicSampler sampler,
				TopicActions actions, DashboardProperties properties) {
			return new ReactiveDashboardPageController(sampler, actions, checkedPath(properties.getPath()));
		}

		@Bean
		@ConditionalOnMissingBean
		ReactiveDashboardApiController delayQueueDashboardApiController(TopicSampler sampler, TopicBrowser browser,
				DueTimeline timeline, TopicActions actions) {
			return new ReactiveDashboardApiController(sampler, browser, timeline, actions);
		}

	}

	/** A Spring MVC or a Spring WebFlux application: the sampler runs only where a controller serves it. */
	static final class OnMvcOrWebFlux extends AnyNestedCondition {

		OnMvcOrWebFlux() {
			super(ConfigurationPhase.REGISTER_BEAN);
		}

		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
		@ConditionalOnClass(name = "org.springframework.web.servlet.DispatcherServlet")
		static class Mvc {

		}

		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		@ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
		static class WebFlux {

		}

	}

	private static String checkedPath(String path) {
		Assert.isTrue(path != null && path.matches("(/[A-Za-z0-9._~-]+)+"),
				() -> "delayqueue.dashboard.path must start with '/' and name a path of letters, digits, '.', '_', "
						+ "'~' or '-' segments, without a trailing '/', but was '" + path + "'");
		return path;
	}

	/**
	 * Rates and lateness from the application's meters, where it has a registry; the lateness timer gets client-side
	 * p50 and p99.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MeterReaderConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MicrometerTopicMeterReader delayQueueDashboardMeterReader(MeterRegistry registry) {
			return new MicrometerTopicMeterReader(registry);
		}

		/** p50 and p99 of the lateness timer with any registry (a meter filter Boot applies to its registries). */
		@Bean
		@ConditionalOnMissingBean
		LatenessPercentiles delayQueueDashboardLatenessPercentiles() {
			return new LatenessPercentiles();
		}

	}

}
