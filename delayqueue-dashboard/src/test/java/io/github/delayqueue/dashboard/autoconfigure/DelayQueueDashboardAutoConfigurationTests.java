package io.github.delayqueue.dashboard.autoconfigure;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.dashboard.DueTimeline;
import io.github.delayqueue.dashboard.TopicActions;
import io.github.delayqueue.dashboard.TopicMeterReader;
import io.github.delayqueue.dashboard.TopicSampler;
import io.github.delayqueue.dashboard.micrometer.LatenessPercentiles;
import io.github.delayqueue.dashboard.micrometer.MicrometerTopicMeterReader;
import io.github.delayqueue.dashboard.web.DashboardApiController;
import io.github.delayqueue.dashboard.web.DashboardPageController;
import io.github.delayqueue.dashboard.web.ReactiveDashboardApiController;
import io.github.delayqueue.dashboard.web.ReactiveDashboardPageController;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.servlet.DispatcherServlet;

import static org.assertj.core.api.Assertions.assertThat;

class DelayQueueDashboardAutoConfigurationTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class, EndpointAutoConfiguration.class,
			DelayQueueDashboardAutoConfiguration.class));

	// the environment converts property values as a Spring Boot application's does (enums in any case)
	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withInitializer((context) -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database());

	private final ReactiveWebApplicationContextRunner reactiveRunner = new ReactiveWebApplicationContextRunner()
		.withInitializer((context) -> context.getEnvironment().setConversionService(new ApplicationConversionService()))
		.withConfiguration(CONFIGURATIONS)
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database());

	@Test
	void aServletApplicationWithTheStarterGetsTheDashboard() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(TopicSampler.class);
			assertThat(context).hasSingleBean(DueTimeline.class);
			assertThat(context).hasSingleBean(DashboardPageController.class);
			assertThat(context).hasSingleBean(DashboardApiController.class);
			assertThat(context).doesNotHaveBean(ReactiveDashboardPageController.class)
				.doesNotHaveBean(ReactiveDashboardApiController.class);
			assertThat(context.getBean(TopicSampler.class).isRunning()).isTrue();
			assertThat(context).doesNotHaveBean(TopicMeterReader.class);
		});
	}

	@Test
	void aWebFluxApplicationWithTheStarterGetsTheDashboardOnWebFlux() {
		this.reactiveRunner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(TopicSampler.class);
			assertThat(context).hasSingleBean(DueTimeline.class);
			assertThat(context).hasSingleBean(ReactiveDashboardPageController.class);
			assertThat(context).hasSingleBean(ReactiveDashboardApiController.class);
			assertThat(context).doesNotHaveBean(DashboardPageController.class)
				.doesNotHaveBean(DashboardApiController.class);
			assertThat(context.getBean(TopicSampler.class).isRunning()).isTrue();
			assertThat(context.getBean(TopicActions.class).isWritable()).isFalse();
		});
		this.reactiveRunner.withPropertyValues("management.endpoint.delayqueue.access=unrestricted")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isTrue());
		this.reactiveRunner.withPropertyValues("delayqueue.dashboard.path=ops/queue/")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("delayqueue.dashboard.path must start with '/'"));
	}

	@Test
	void aWebApplicationWithoutItsStacksDispatcherGetsNoDashboard() {
		this.reactiveRunner.withClassLoader(new FilteredClassLoader(DispatcherHandler.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TopicSampler.class));
		this.runner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TopicSampler.class));
	}

	@Test
	void writesAreClosedByDefault() {
		this.runner.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isFalse());
	}

	@Test
	void writesFollowTheDelayqueueEndpointsAccess() {
		this.runner.withPropertyValues("management.endpoint.delayqueue.access=unrestricted")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isTrue());
		this.runner.withPropertyValues("management.endpoints.access.default=unrestricted")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isTrue());
		this.runner.withPropertyValues("management.endpoint.delayqueue.access=read-only")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isFalse());
		this.runner
			.withPropertyValues("management.endpoint.delayqueue.access=unrestricted",
					"management.endpoints.access.max-permitted=read-only")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isFalse());
	}

	@Test
	void theDashboardsOwnAccessWins() {
		this.runner.withPropertyValues("delayqueue.dashboard.access=unrestricted")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isTrue());
		this.runner
			.withPropertyValues("delayqueue.dashboard.access=read-only",
					"management.endpoint.delayqueue.access=unrestricted")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isFalse());
	}

	@Test
	void withoutActuatorOnlyTheDashboardsOwnAccessOpensWrites() {
		WebApplicationContextRunner withoutActuator = new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class, DelayQueueDashboardAutoConfiguration.class)))
			.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate"))
			.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
					"spring.data.redis.port=" + redis.get().port(),
					"management.endpoint.delayqueue.access=unrestricted");
		withoutActuator.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(TopicActions.class).isWritable()).isFalse();
		});
		withoutActuator.withPropertyValues("delayqueue.dashboard.access=unrestricted")
			.run((context) -> assertThat(context.getBean(TopicActions.class).isWritable()).isTrue());
	}

	@Test
	void aMeterRegistryGivesRatesAndLateness() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerTopicMeterReader.class);
			assertThat(context).hasSingleBean(LatenessPercentiles.class);
		});
	}

	@Test
	void theDashboardCanBeSwitchedOff() {
		this.runner.withPropertyValues("delayqueue.dashboard.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(TopicSampler.class)
				.doesNotHaveBean(DashboardPageController.class));
	}

	@Test
	void withoutDelayqueueThereIsNoDashboard() {
		this.runner.withPropertyValues("delayqueue.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TopicSampler.class));
	}

	@Test
	void aNonWebApplicationGetsNoDashboard() {
		new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
			.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
					"spring.data.redis.port=" + redis.get().port())
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(TopicSampler.class));
	}

	@Test
	void aBadPathFailsTheStartWithTheRule() {
		this.runner.withPropertyValues("delayqueue.dashboard.path=ops/queue/").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("delayqueue.dashboard.path must start with '/'")
				.hasMessageContaining("'ops/queue/'");
		});
	}

	@Test
	void badSettingsFailTheStartNamingThem() {
		this.runner.withPropertyValues("delayqueue.dashboard.history-size=1")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("History size must be at least 2"));
		this.runner.withPropertyValues("delayqueue.dashboard.timeline.buckets=0")
			.run((context) -> assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("Buckets must be between 1 and 200"));
	}

}
