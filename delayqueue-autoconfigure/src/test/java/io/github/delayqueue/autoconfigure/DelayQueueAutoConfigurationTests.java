package io.github.delayqueue.autoconfigure;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.PayloadTooLargeException;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.annotation.DelayedListenerAnnotationBeanPostProcessor;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayQueueConfigUtils;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.FailureAction;
import io.github.delayqueue.listener.ListenerOptions;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.core.RedisReactiveDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.wakeup.WakeUpTimer;
import io.github.delayqueue.support.micrometer.DelayQueueTopicMetrics;
import io.github.delayqueue.support.micrometer.MicrometerDelayQueueMonitor;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import io.github.delayqueue.build.redis.TestRedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.backoff.BackOffExecution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class DelayQueueAutoConfigurationTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class)))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database());

	@Test
	void defaultBeansArePresent() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(DelayedQueue.class);
			assertThat(context.getBean(DelayedQueue.class)).isInstanceOf(RedisDelayedQueue.class);
			assertThat(context).hasSingleBean(RedisMessageStore.class);
			assertThat(context).hasSingleBean(PayloadConverter.class);
			assertThat(context).hasSingleBean(WakeUpTimer.class);
			assertThat(context).hasSingleBean(DelayedListenerContainerFactory.class);
			assertThat(context).hasBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME);
			assertThat(context).hasSingleBean(DelayedListenerContainerFactoryConfigurer.class);
			assertThat(context).hasSingleBean(DelayedListenerEndpointRegistry.class);
			assertThat(context).hasBean(DelayedListenerAnnotationBeanPostProcessor.BEAN_NAME);
			assertThat(context.getBean(WakeUpTimer.class).isRunning()).isTrue();
			assertThat(context.getBean(DelayedListenerEndpointRegistry.class).isRunning()).isTrue();
			assertThat(context.getBean(RedisMessageStore.class).keys().prefix()).isEqualTo("dq");
		});
	}

	@Test
	void withReactorAndLettuceTheNonBlockingQueuesArePresentAndScheduleToTheSameStore() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(AsyncDelayedQueue.class);
			assertThat(context).hasSingleBean(ReactiveDelayedQueue.class);
			RedisDelayedQueue queue = context.getBean(RedisDelayedQueue.class);
			assertThat(context.getBean(AsyncDelayedQueue.class)).isSameAs(queue.async());
			String id = context.getBean(ReactiveDelayedQueue.class)
				.schedule("auto-reactive", "x", java.time.Duration.ofMinutes(5))
				.block(java.time.Duration.ofSeconds(10));
			assertThat(queue.lookup("auto-reactive", id)).isPresent();
			String asyncId = context.getBean(AsyncDelayedQueue.class)
				.schedule("auto-reactive", "y", java.time.Duration.ofMinutes(5))
				.get(10, java.util.concurrent.TimeUnit.SECONDS);
			assertThat(queue.lookup("auto-reactive", asyncId)).isPresent();
		});
	}

	@Test
	void withoutReactorThereIsNoNonBlockingQueue() {
		this.runner.withClassLoader(new FilteredClassLoader(reactor.core.publisher.Mono.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(DelayedQueue.class);
			assertThat(context).doesNotHaveBean(AsyncDelayedQueue.class);
			assertThat(context).doesNotHaveBean(ReactiveDelayedQueue.class);
		});
	}

	@Test
	void withoutAReactiveConnectionFactoryThereIsNoNonBlockingQueue() {
		this.runner.withPropertyValues("spring.data.redis.client-type=jedis").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).hasSingleBean(DelayedQueue.class);
			assertThat(context).doesNotHaveBean(org.springframework.data.redis.connection.ReactiveRedisConnectionFactory.class);
			assertThat(context).doesNotHaveBean(AsyncDelayedQueue.class);
			assertThat(context).doesNotHaveBean(ReactiveDelayedQueue.class);
		});
	}

	@Test
	void theApplicationsOwnReactiveQueueBacksOursOff() {
		this.runner.withUserConfiguration(OwnReactiveQueue.class).run((context) -> {
			assertThat(context).hasSingleBean(ReactiveDelayedQueue.class);
			assertThat(context).getBean("ownReactiveQueue").isSameAs(context.getBean(ReactiveDelayedQueue.class));
			assertThat(context).hasSingleBean(AsyncDelayedQueue.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class OwnReactiveQueue {

		@Bean
		ReactiveDelayedQueue ownReactiveQueue(RedisDelayedQueue queue) {
			return new RedisReactiveDelayedQueue(queue);
		}

	}

	@Test
	void theApplicationsJsonMapperIsUsed() {
		this.runner.withPropertyValues("spring.jackson.property-naming-strategy=SNAKE_CASE").run((context) -> {
			PayloadConverter converter = context.getBean(PayloadConverter.class);
			assertThat(new String(converter.write(new Named("x")))).isEqualTo("{\"first_name\":\"x\"}");
		});
	}

	@Test
	void userBeansBackOurs() {
		this.runner.withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context).hasSingleBean(PayloadConverter.class);
			assertThat(context.getBean(PayloadConverter.class)).isSameAs(UserBeans.CONVERTER);
			assertThat(context).getBean("userQueue").isSameAs(context.getBean(DelayedQueue.class));
			assertThat(context).hasSingleBean(WakeUpTimer.class);
			assertThat(context).getBean("userScheduler").isSameAs(context.getBean(WakeUpTimer.class));
			assertThat(context).hasSingleBean(DelayedListenerContainerFactory.class);
			assertThat(context).getBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
				.isSameAs(UserBeans.factory);
			assertThat(context).hasSingleBean(RedisMessageStore.class);
			assertThat(context).getBean("userStore").isSameAs(context.getBean(RedisMessageStore.class));
		});
	}

	@Test
	void aWrappedQueueIsTheOneInjectedAndTheEndpointAndTopicMetricsKeepWorking() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withConfiguration(AutoConfigurations.of(DelayQueueEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=delayqueue")
			.withUserConfiguration(WrappingQueue.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(DelayedQueue.class)).isSameAs(context.getBean("tenantQueue"));
				assertThat(context).hasSingleBean(RedisDelayedQueue.class);
				assertThat(context).hasSingleBean(io.github.delayqueue.DelayedQueueAdmin.class);
				assertThat(context).hasSingleBean(io.github.delayqueue.actuate.DelayQueueEndpoint.class);
				assertThat(context).hasSingleBean(DelayQueueTopicMetrics.class);
				context.getBean(DelayedQueue.class).schedule("wrapped", "x", Duration.ofMinutes(1));
				assertThat(WrappingQueue.calls).contains("schedule");
				assertThat(context.getBean(io.github.delayqueue.actuate.DelayQueueEndpoint.class).topics().toString())
					.contains("wrapped");
			});
	}

	@Test
	void recurringSchedulesDeclaredInPropertiesAreDefinedInRedisAndTick() {
		this.runner
			.withPropertyValues("delayqueue.recurring.poll-interval=50ms",
					"delayqueue.recurring.schedules.heartbeat.topic=beats",
					"delayqueue.recurring.schedules.heartbeat.every=200ms",
					"delayqueue.recurring.schedules.heartbeat.payload=\"beat\"",
					"delayqueue.recurring.schedules.heartbeat.missed-ticks=skip")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				io.github.delayqueue.recurring.RecurringSchedules schedules = context
					.getBean(io.github.delayqueue.recurring.RecurringSchedules.class);
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(schedules.get("heartbeat")).hasValueSatisfying((info) -> {
						assertThat(info.topic()).isEqualTo("beats");
						assertThat(info.every()).isEqualTo(Duration.ofMillis(200));
						assertThat(info.missedTicks()).isEqualTo(io.github.delayqueue.recurring.MissedTicks.SKIP);
						assertThat(info.lastTick()).as("ticking").isNotNull();
					}));
				schedules.remove("heartbeat");
			});
		this.runner
			.withPropertyValues("delayqueue.recurring.schedules.bad.topic=beats",
					"delayqueue.recurring.schedules.bad.cron=every minute",
					"delayqueue.recurring.schedules.bad.payload=1")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.recurring.schedules.bad.cron")
				.hasMessageContaining("Invalid cron expression"));
		this.runner.withPropertyValues("delayqueue.recurring.enabled=false")
			.run((context) -> assertThat(
					context.getBean(io.github.delayqueue.recurring.RedisRecurringSchedules.class).isRunning())
				.isFalse());
	}

	@Test
	void recurringTicksAreCountedAsScheduledMessagesLikeEveryMessage() {
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("delayqueue.recurring.poll-interval=50ms",
					"delayqueue.recurring.schedules.counted.topic=counted-ticks",
					"delayqueue.recurring.schedules.counted.every=200ms",
					"delayqueue.recurring.schedules.counted.payload=\"tick\"")
			.run((context) -> {
				SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
				await().atMost(Duration.ofSeconds(20)).until(() -> {
					Counter scheduled = meters.find("delayqueue.messages.scheduled").tag("topic", "counted-ticks")
						.counter();
					return scheduled != null && scheduled.count() >= 2;
				});
				context.getBean(io.github.delayqueue.recurring.RecurringSchedules.class).remove("counted");
			});
	}

	@Test
	void aDeclaredSchedulesZoneAndMissedTicksBindAsAZoneIdAndAnEnum() {
		this.runner
			.withPropertyValues("delayqueue.recurring.enabled=false",
					"delayqueue.recurring.schedules.nightly.topic=reports",
					"delayqueue.recurring.schedules.nightly.cron=0 30 2 * * *",
					"delayqueue.recurring.schedules.nightly.zone=Europe/Berlin",
					"delayqueue.recurring.schedules.nightly.payload=\"night\"",
					"delayqueue.recurring.schedules.nightly.missed-ticks=fire-each")
			.run((context) -> {
				DelayQueueProperties.Schedule nightly = context.getBean(DelayQueueProperties.class)
					.getRecurring()
					.getSchedules()
					.get("nightly");
				assertThat(nightly.getZone()).isEqualTo(ZoneId.of("Europe/Berlin"));
				assertThat(nightly.getMissedTicks()).isEqualTo(io.github.delayqueue.recurring.MissedTicks.FIRE_EACH);
			});
		this.runner
			.withPropertyValues("delayqueue.recurring.schedules.nightly.topic=reports",
					"delayqueue.recurring.schedules.nightly.cron=0 30 2 * * *",
					"delayqueue.recurring.schedules.nightly.zone=Europe/Nowhere",
					"delayqueue.recurring.schedules.nightly.payload=1")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("Failed to bind properties under 'delayqueue.recurring.schedules.nightly.zone'"));
		this.runner
			.withPropertyValues("delayqueue.recurring.schedules.nightly.topic=reports",
					"delayqueue.recurring.schedules.nightly.cron=0 30 2 * * *",
					"delayqueue.recurring.schedules.nightly.missed-ticks=sometimes",
					"delayqueue.recurring.schedules.nightly.payload=1")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining(
						"Failed to bind properties under 'delayqueue.recurring.schedules.nightly.missed-ticks'"));
	}

	@Test
	void changesFollowTransactionsUnlessTurnedOff() {
		this.runner.run((context) -> assertThat(context.getBean(RedisDelayedQueue.class).isTransactionAware())
			.isTrue());
		this.runner.withPropertyValues("delayqueue.transaction-aware=false")
			.run((context) -> assertThat(context.getBean(RedisDelayedQueue.class).isTransactionAware()).isFalse());
	}

	@Test
	void metricsAreRecordedWhenAMeterRegistryExists() {
		this.runner.withBean(SimpleMeterRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerDelayQueueMonitor.class);
			assertThat(context).hasSingleBean(DelayQueueTopicMetrics.class);
			context.getBean(DelayedQueue.class).schedule("counted", "x", Duration.ofMinutes(1));
			assertThat(context.getBean(SimpleMeterRegistry.class)
				.get("delayqueue.messages.scheduled")
				.tag("topic", "counted")
				.counter()
				.count()).isEqualTo(1);
		});
		this.runner.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("delayqueue.metrics.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerDelayQueueMonitor.class));
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(MicrometerDelayQueueMonitor.class));
	}

	@Test
	void handlerTimeIsRecordedOnceByTheObservationWhereItIsTimedElseByTheMonitor() {
		SimpleMeterRegistry meters = new SimpleMeterRegistry();
		DefaultMeterObservationHandler meterHandler = new DefaultMeterObservationHandler(meters);
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(meterHandler);
		this.runner.withBean(SimpleMeterRegistry.class, () -> meters)
			.withBean(ObservationRegistry.class, () -> observations)
			.withBean(DefaultMeterObservationHandler.class, () -> meterHandler)
			.run((context) -> {
				handleOne(context, "observed");
				await().atMost(Duration.ofSeconds(20))
					.until(() -> meters.find("delayqueue.listener").tag("messaging.destination.name", "observed").timer() != null
							&& meters.find("delayqueue.listener").tag("messaging.destination.name", "observed").timer().count() == 1);
				assertThat(meters.find("delayqueue.handle").timers()).isEmpty();
				assertThat(meters.get("delayqueue.messages.delivered").tag("topic", "observed").counter().count())
					.isEqualTo(1);
			});
		// the listener observation switched off: its calls are not observed, so the monitor times them
		SimpleMeterRegistry filtered = new SimpleMeterRegistry();
		DefaultMeterObservationHandler filteredHandler = new DefaultMeterObservationHandler(filtered);
		ObservationRegistry withoutListener = ObservationRegistry.create();
		withoutListener.observationConfig()
			.observationHandler(filteredHandler)
			.observationPredicate((name, observationContext) -> !name.equals("delayqueue.listener"));
		this.runner.withBean(SimpleMeterRegistry.class, () -> filtered)
			.withBean(ObservationRegistry.class, () -> withoutListener)
			.withBean(DefaultMeterObservationHandler.class, () -> filteredHandler)
			.run((context) -> {
				handleOne(context, "unobserved");
				await().atMost(Duration.ofSeconds(20))
					.until(() -> filtered.find("delayqueue.handle").tag("outcome", "success").timer() != null);
				assertThat(filtered.find("delayqueue.listener").timers()).isEmpty();
			});
		SimpleMeterRegistry plain = new SimpleMeterRegistry();
		this.runner.withBean(SimpleMeterRegistry.class, () -> plain).run((context) -> {
			handleOne(context, "timed");
			await().atMost(Duration.ofSeconds(20))
				.until(() -> plain.get("delayqueue.handle").tag("outcome", "success").timer().count() == 1);
			assertThat(plain.find("delayqueue.listener").timers()).isEmpty();
		});
	}

	private static void handleOne(org.springframework.context.ApplicationContext context, String topic) {
		context.getBean(DelayedListenerEndpointRegistry.class)
			.registerListenerContainer(SimpleDelayedListenerEndpoint.of(topic, String.class, (payload, message) -> {
			}), factory(context), true);
		context.getBean(DelayedQueue.class).schedule(topic, "x", Duration.ZERO);
	}

	@Test
	void canBeDisabled() {
		this.runner.withPropertyValues("delayqueue.enabled=false").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(DelayedQueue.class);
			assertThat(context).doesNotHaveBean(DelayedListenerContainerFactory.class);
			assertThat(context).doesNotHaveBean(DelayedListenerAnnotationBeanPostProcessor.BEAN_NAME);
		});
	}

	@Test
	void withoutARedisConnectionFactoryNothingIsConfigured() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(BootLine.jackson(), DelayQueueAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(DelayedQueue.class);
			});
	}

	@Test
	void withoutRedisOnTheClasspathNothingIsConfigured() {
		// no Redis client either (the Jedis tests put Jedis beside Lettuce on this module's class path)
		this.runner.withClassLoader(new FilteredClassLoader(FilteredClassLoader.PackageFilter.of("redis.clients.jedis"),
				FilteredClassLoader.ClassFilter.of(RedisConnectionFactory.class))).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(DelayedQueue.class);
		});
	}

	@Test
	void aSingleErrorHandlerBeanBecomesTheListenersDefault() {
		DeliveryErrorHandler handler = (message, failure) -> FailureAction.acknowledge();
		this.runner.withBean(DeliveryErrorHandler.class, () -> handler).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(factory(context).getDefaultOptions().errorHandler()).isSameAs(handler);
			// a listener registered in code gets it too
			assertThat(factory(context)
				.createListenerContainer(SimpleDelayedListenerEndpoint.of("coded", String.class, (payload, message) -> {
				}))
				.getRegistration()
				.options()
				.errorHandler()).isSameAs(handler);
		});
		this.runner.withBean("one", DeliveryErrorHandler.class, () -> handler)
			.withBean("two", DeliveryErrorHandler.class, () -> handler)
			.run((context) -> assertThat(factory(context).getDefaultOptions().errorHandler())
				.as("the default one, with Boot's backoff").isInstanceOf(DefaultDeliveryErrorHandler.class));
	}

	@Test
	@EnabledForJreRange(min = JRE.JAVA_21, disabledReason = "virtual threads need Java 21")
	void withVirtualThreadsEnabledHandlersRunOnVirtualThreads() {
		this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
			assertThat(context).hasNotFailed();
			List<Boolean> virtual = new CopyOnWriteArrayList<>();
			context.getBean(DelayedListenerEndpointRegistry.class)
				.registerListenerContainer(SimpleDelayedListenerEndpoint.of("vt", String.class, (payload, message) -> virtual
					.add((Boolean) Thread.class.getMethod("isVirtual").invoke(Thread.currentThread()))), factory(context),
						true);
			context.getBean(DelayedQueue.class).schedule("vt", "x", Duration.ZERO);
			await().atMost(Duration.ofSeconds(20)).until(() -> virtual.size() == 1);
			assertThat(virtual).containsExactly(true);
		});
	}

	@Test
	void aTaskDecoratorBeanWrapsEveryHandlerRun() {
		ThreadLocal<String> context = new ThreadLocal<>();
		TaskDecorator decorator = (runnable) -> () -> {
			context.set("from-decorator");
			try {
				runnable.run();
			}
			finally {
				context.remove();
			}
		};
		this.runner.withBean(TaskDecorator.class, () -> decorator).run((app) -> {
			assertThat(app).hasNotFailed();
			List<String> seen = new CopyOnWriteArrayList<>();
			app.getBean(DelayedListenerEndpointRegistry.class)
				.registerListenerContainer(SimpleDelayedListenerEndpoint.of("decorated", String.class,
						(payload, message) -> seen.add(context.get())), factory(app), true);
			app.getBean(DelayedQueue.class).schedule("decorated", "x", Duration.ZERO);
			await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 1);
			assertThat(seen).containsExactly("from-decorator");
		});
	}

	@Test
	void theWakeUpTimerAndTheListenersStartOnTheirOwnSettings() {
		this.runner.withPropertyValues("delayqueue.listener.auto-startup=false").run((context) -> {
			assertThat(context.getBean(WakeUpTimer.class).isAutoStartup()).isTrue();
			assertThat(codedContainer(context).isAutoStartup()).isFalse();
		});
		this.runner.withPropertyValues("delayqueue.wake-up.auto-startup=false").run((context) -> {
			assertThat(context.getBean(WakeUpTimer.class).isAutoStartup()).isFalse();
			assertThat(codedContainer(context).isAutoStartup()).isTrue();
		});
	}

	@Test
	void theBackoffPropertiesGiveTheDefaultHandlersDelays() {
		this.runner.withPropertyValues("delayqueue.listener.backoff.delay=3s", "delayqueue.listener.backoff.max-delay=7s",
				"delayqueue.listener.backoff.jitter=0s")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				BackOffExecution execution = ((DefaultDeliveryErrorHandler) factory(context).getDefaultOptions().errorHandler()).getBackOff().start();
				assertThat(execution.nextBackOff()).isEqualTo(3000L);
				assertThat(execution.nextBackOff()).isEqualTo(6000L);
				assertThat(execution.nextBackOff()).isEqualTo(7000L);
			});
	}

	@Test
	void propertiesAreBound() {
		this.runner
			.withPropertyValues("delayqueue.key-prefix=myapp", "delayqueue.max-payload-size=10B", "delayqueue.stored-format=2",
					"delayqueue.listener.concurrency=7", "delayqueue.listener.visibility-timeout=45s",
					"delayqueue.listener.max-attempts=3", "delayqueue.listener.batch-size=20",
					"delayqueue.listener.backoff.delay=2s", "delayqueue.listener.backoff.max-delay=1m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(RedisMessageStore.class).keys().prefix()).isEqualTo("myapp");
				assertThat(context.getBean(RedisMessageStore.class).getReplicaAcknowledgement()).isZero();
				ListenerOptions options = factory(context).getDefaultOptions();
				assertThat(options.concurrency()).isEqualTo(7);
				assertThat(options.visibilityTimeout()).isEqualTo(Duration.ofSeconds(45));
				assertThat(options.maxAttempts()).isEqualTo(3);
				assertThat(options.batchSize()).isEqualTo(20);
				assertThat(((DefaultDeliveryErrorHandler) options.errorHandler()).getBackOff().start().nextBackOff()).isBetween(1500L, 2500L);
				DelayedQueue queue = context.getBean(DelayedQueue.class);
				assertThatThrownBy(() -> queue.schedule("t", "x".repeat(20), Duration.ZERO))
					.isInstanceOf(PayloadTooLargeException.class);
				String id = queue.schedule("t", "ok", Duration.ofMinutes(1));
				assertThat(redis.get().call("HEXISTS", "myapp:{t}:body:0", id)).isEqualTo("1");
				// stored format 2: in the pending set, not in a page
				assertThat(redis.get().call("ZSCORE", "myapp:{t}:pending", id)).isNotNull();
			});
	}

	@Test
	void invalidPropertiesFailStartupNamingTheProperty() {
		assertStartupFailsNaming("delayqueue.listener.concurrency=0", "delayqueue.listener.concurrency");
		assertStartupFailsNaming("delayqueue.listener.visibility-timeout=-1s", "delayqueue.listener.visibility-timeout");
		assertStartupFailsNaming("delayqueue.listener.backoff.multiplier=0.5", "delayqueue.listener.backoff.multiplier");
		assertStartupFailsNaming("delayqueue.listener.max-attempts=0", "delayqueue.listener.max-attempts");
		assertStartupFailsNaming("delayqueue.wake-up.poll-interval=0s", "delayqueue.wake-up.poll-interval");
		assertStartupFailsNaming("delayqueue.wake-up.tick=-5ms", "delayqueue.wake-up.tick");
		assertStartupFailsNaming("delayqueue.stored-format=3", "delayqueue.stored-format");
		assertStartupFailsNaming("delayqueue.key-prefix=a{b}", "delayqueue.key-prefix");
		assertStartupFailsNaming("delayqueue.key-prefix=a\tb", "delayqueue.key-prefix");
		assertStartupFailsNaming("delayqueue.max-payload-size=0B", "delayqueue.max-payload-size");
		assertStartupFailsNaming("delayqueue.listener.backoff.max-delay=10ms", "delayqueue.listener.backoff.max-delay");
		assertStartupFailsNaming("delayqueue.listener.backoff.jitter=-1s", "delayqueue.listener.backoff.jitter");
		assertStartupFailsNaming("delayqueue.listener.batch-size=1001", "delayqueue.listener.batch-size");
		assertStartupFailsNaming("delayqueue.listener.shutdown-timeout=-1s", "delayqueue.listener.shutdown-timeout");
		assertStartupFailsNaming("delayqueue.dead-letter.max-count=0", "delayqueue.dead-letter.max-count");
		assertStartupFailsNaming("delayqueue.dead-letter.max-age=0s", "delayqueue.dead-letter.max-age");
		assertStartupFailsNaming("delayqueue.durability.replicas=-1", "delayqueue.durability.replicas");
		assertStartupFailsNaming("delayqueue.durability.timeout=0s", "delayqueue.durability.timeout");
		assertStartupFailsNaming("delayqueue.listener.handler-timeout=1ms", "delayqueue.listener.handler-timeout");
		assertStartupFailsNaming("delayqueue.topics.emails.rate-limit=-5", "delayqueue.topics.emails.rate-limit");
		assertStartupFailsNaming("delayqueue.topics.emails.max-in-flight=0", "delayqueue.topics.emails.max-in-flight");
		assertStartupFailsNaming("delayqueue.topics.emails.group-max-in-flight=0",
				"delayqueue.topics.emails.group-max-in-flight");
		assertStartupFailsNaming("delayqueue.topics.emails.groups.acme.max-in-flight=0",
				"delayqueue.topics.emails.groups.acme.max-in-flight");
		assertStartupFailsNaming("delayqueue.topics.emails.group-rate-limit=0",
				"delayqueue.topics.emails.group-rate-limit");
		assertStartupFailsNaming("delayqueue.topics.emails.groups.acme.rate-limit=-2",
				"delayqueue.topics.emails.groups.acme.rate-limit");
	}

	@Test
	void declaredGroupCapsAreAppliedToRedis() {
		this.runner
			.withPropertyValues("delayqueue.topics.tenants.group-max-in-flight=4",
					"delayqueue.topics.tenants.groups.acme.max-in-flight=1",
					"delayqueue.topics.tenants.group-rate-limit=20", "delayqueue.topics.tenants.groups.acme.rate-limit=2.5")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				io.github.delayqueue.DelayedQueueAdmin admin = context.getBean(io.github.delayqueue.DelayedQueueAdmin.class);
				assertThat(admin.groupControls("tenants", "acme").effectiveCap()).isEqualTo(1);
				assertThat(admin.groupControls("tenants", "other").effectiveCap()).isEqualTo(4);
				assertThat(admin.groupControls("tenants", "acme").effectiveRatePerSecond()).isEqualTo(2.5);
				assertThat(admin.groupControls("tenants", "other").effectiveRatePerSecond()).isEqualTo(20.0);
			});
	}

	@Test
	void aDeclaredPriorityModeIsAppliedToRedisAndABadOneFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("delayqueue.topics.ranked.priority-mode=strict").run((context) -> {
			assertThat(context).hasNotFailed();
			io.github.delayqueue.DelayedQueueAdmin admin = context.getBean(io.github.delayqueue.DelayedQueueAdmin.class);
			assertThat(admin.priorityMode("ranked")).isEqualTo(io.github.delayqueue.MessagePriorities.PriorityMode.STRICT);
		});
		assertStartupFailsNaming("delayqueue.topics.ranked.priority-mode=fastest",
				"delayqueue.topics.ranked.priority-mode");
	}

	@Test
	void declaredSubscriptionsAreKeptInRedisAndABadNameFailsStartupNamingTheProperty() {
		this.runner.withPropertyValues("delayqueue.topics.invoices.subscriptions=billing, audit").run((context) -> {
			assertThat(context).hasNotFailed();
			io.github.delayqueue.DelayedQueueAdmin admin = context.getBean(io.github.delayqueue.DelayedQueueAdmin.class);
			assertThat(admin.subscriptions("invoices")).containsOnlyKeys("audit", "billing");
			assertThat(admin.knownTopics()).contains("invoices@billing", "invoices@audit");
		});
		assertStartupFailsNaming("delayqueue.topics.invoices.subscriptions=has space",
				"delayqueue.topics.invoices.subscriptions");
	}

	@Test
	void aSubscriptionsControlsAreDeclaredUnderItsFullNameAndTheEndpointShowsIt() {
		this.runner.withConfiguration(AutoConfigurations.of(DelayQueueEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=delayqueue",
					"delayqueue.topics.receipts.subscriptions=billing",
					"delayqueue.topics[receipts@billing].rate-limit=20")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				io.github.delayqueue.DelayedQueueAdmin admin = context.getBean(io.github.delayqueue.DelayedQueueAdmin.class);
				assertThat(admin.controls("receipts@billing").limits().ratePerSecond()).isEqualTo(20.0);
				assertThat(admin.controls("receipts").limits().isLimited()).as("the topic's own").isFalse();
				assertThat(admin.partitions("receipts@billing")).isEqualTo(1);
				io.github.delayqueue.actuate.DelayQueueEndpoint endpoint = context
					.getBean(io.github.delayqueue.actuate.DelayQueueEndpoint.class);
				assertThat(endpoint.topic("receipts@billing").topic()).isEqualTo("receipts@billing");
				assertThat(endpoint.topics().topics()).extracting((topic) -> topic.topic())
					.contains("receipts@billing");
			});
		assertStartupFailsNaming("delayqueue.topics[receipts@billing].partitions=4",
				"delayqueue.topics.receipts@billing.partitions");
	}

	@Test
	void theEndpointReadsAndChangesOneGroup() {
		this.runner.withConfiguration(AutoConfigurations.of(DelayQueueEndpointAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=delayqueue",
					"delayqueue.topics.tenants.group-max-in-flight=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				io.github.delayqueue.actuate.DelayQueueEndpoint endpoint = context
					.getBean(io.github.delayqueue.actuate.DelayQueueEndpoint.class);
				assertThat(endpoint.changeGroup("tenants", "groups", "acme", "pause", null, null, null))
					.satisfies((state) -> assertThat(state.paused()).isTrue());
				assertThat(endpoint.changeGroup("tenants", "groups", "acme", "cap", 2, null, null))
					.satisfies((state) -> assertThat(state.cap()).isEqualTo(2));
				assertThat(endpoint.message("tenants", "groups", "acme")).isInstanceOfSatisfying(
						io.github.delayqueue.GroupControlState.class, (state) -> {
							assertThat(state.paused()).isTrue();
							assertThat(state.cap()).isEqualTo(2);
							assertThat(state.defaultCap()).isEqualTo(3);
						});
				assertThat(endpoint.changeGroup("tenants", "groups", "acme", "rate", null, null, 7.5))
					.satisfies((state) -> assertThat(state.ratePerSecond()).isEqualTo(7.5));
				assertThatExceptionOfType(org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.changeGroup("tenants", "groups", "acme", "rate", null, null, -1.0))
					.withMessageContaining("Group rate limit must be positive");
				assertThat(endpoint.changeGroup("tenants", "groups", "acme", "rate", null, null, 0.0))
					.satisfies((state) -> assertThat(state.ratePerSecond()).isNull());
				assertThat(endpoint.changeGroup("tenants", "groups", "acme", "resume", null, null, null))
					.satisfies((state) -> assertThat(state.paused()).isFalse());
				assertThatExceptionOfType(org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
					.isThrownBy(() -> endpoint.changeGroup("tenants", "groups", "acme", "cap", -1, null, null))
					.withMessageContaining("Group cap must be at least 1");
				assertThat(endpoint.changeGroup("tenants", "groups", "acme", "explode", null, null, null)).isNull();
			});
	}

	@Test
	void declaredTopicLimitsAreAppliedToRedisAndTheHandlerTimeoutToListeners() {
		this.runner
			.withPropertyValues("delayqueue.topics.emails.rate-limit=25", "delayqueue.topics.emails.max-in-flight=6",
					"delayqueue.listener.handler-timeout=2m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				io.github.delayqueue.DelayedQueueAdmin admin = context.getBean(io.github.delayqueue.DelayedQueueAdmin.class);
				assertThat(admin).isNotInstanceOf(DelayedQueue.class);
				io.github.delayqueue.TopicControlState controls = admin.controls("emails");
				assertThat(controls.limits().ratePerSecond()).isEqualTo(25.0);
				assertThat(controls.limits().maxInFlight()).isEqualTo(6);
				assertThat(admin.knownTopics()).contains("emails");
				assertThat(factory(context).getDefaultOptions().handlerTimeout()).isEqualTo(Duration.ofMinutes(2));
			});
	}

	@Test
	void listenersLeaseAheadUnlessThePropertyTurnsItOff() {
		this.runner.run((context) -> assertThat(factory(context).getDefaultOptions().leaseAhead()).isTrue());
		this.runner.withPropertyValues("delayqueue.listener.lease-ahead=false")
			.run((context) -> assertThat(factory(context).getDefaultOptions().leaseAhead()).isFalse());
	}

	@Test
	void batchListenerPropertiesSetTheDefaultsOfBatchListeners() {
		this.runner.run((context) -> {
			assertThat(factory(context).getDefaultOptions().batchMaxMessages()).isEqualTo(100);
			assertThat(factory(context).getDefaultOptions().batchMaxWait()).isZero();
		});
		this.runner
			.withPropertyValues("delayqueue.listener.batch-max-messages=25", "delayqueue.listener.batch-max-wait=50ms")
			.run((context) -> {
				assertThat(factory(context).getDefaultOptions().batchMaxMessages()).isEqualTo(25);
				assertThat(factory(context).getDefaultOptions().batchMaxWait()).isEqualTo(Duration.ofMillis(50));
			});
		assertStartupFailsNaming("delayqueue.listener.batch-max-messages=0", "delayqueue.listener.batch-max-messages");
		assertStartupFailsNaming("delayqueue.listener.batch-max-wait=2m", "delayqueue.listener.batch-max-wait");
	}

	@Test
	void customizersTuneTheQueueAndTheFactoryInOrderAfterTheProperties() {
		java.util.List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.runner.withPropertyValues("delayqueue.listener.shutdown-timeout=3s", "delayqueue.transaction-aware=true")
			.withBean("second", RedisDelayedQueueCustomizer.class,
					() -> new OrderedQueueCustomizer(2, order, (queue) -> queue.setTransactionAware(false)))
			.withBean("first", RedisDelayedQueueCustomizer.class,
					() -> new OrderedQueueCustomizer(1, order, (queue) -> assertThat(queue.isTransactionAware()).isTrue()))
			.withBean(DelayedListenerContainerFactoryCustomizer.class, () -> (factory) -> {
				assertThat(factory.getContainerProperties().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
				factory.getContainerProperties().setShutdownTimeout(Duration.ofSeconds(7));
			})
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(order).containsExactly("1", "2");
				assertThat(context.getBean(io.github.delayqueue.core.RedisDelayedQueue.class).isTransactionAware()).isFalse();
				assertThat(factory(context).getContainerProperties().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(7));
			});
	}

	record OrderedQueueCustomizer(int order, java.util.List<String> seen,
			java.util.function.Consumer<io.github.delayqueue.core.RedisDelayedQueue> action)
			implements RedisDelayedQueueCustomizer, org.springframework.core.Ordered {

		@Override
		public void customize(io.github.delayqueue.core.RedisDelayedQueue queue) {
			this.seen.add(Integer.toString(this.order));
			this.action.accept(queue);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Test
	void worksBehindRedisSentinelWithBootsProperties() {
		try (io.github.delayqueue.build.redis.TestRedisSentinel sentinel = io.github.delayqueue.build.redis.TestRedisSentinel.start()) {
			new ApplicationContextRunner()
				.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
				.withPropertyValues("spring.data.redis.sentinel.master=" + sentinel.masterName(),
						"spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelAddresses()),
						"delayqueue.durability.replicas=1")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					DelayedQueue queue = context.getBean(DelayedQueue.class);
					assertThat(queue.schedule("sentinel", "s-1", "x", Duration.ofMinutes(5))).isTrue();
					// its envelope, in the topic's one bucket, whether it waits in pending or in a page
					assertThat(sentinel.call(sentinel.replicaPort(), "HEXISTS", "dq:{sentinel}:body:0", "s-1"))
						.as("on the replica when schedule returned").isEqualTo("1");
					assertThat(context.getBean(DelayedQueueAdmin.class).stats("sentinel").waiting()).isEqualTo(1);
				});
		}
	}

	@Test
	void replicaAcknowledgementIsBound() {
		this.runner.withPropertyValues("delayqueue.durability.replicas=2", "delayqueue.durability.timeout=250ms")
			.run((context) -> assertThat(context.getBean(RedisMessageStore.class).getReplicaAcknowledgement())
				.isEqualTo(2));
	}

	@Test
	void topicPartitionsAreBoundAndUsedByProducersAndListeners() {
		this.runner.withPropertyValues("delayqueue.topics.order-timeout.partitions=4").run((context) -> {
			assertThat(context).hasNotFailed();
			TopicPartitioning partitioning = context.getBean(TopicPartitioning.class);
			assertThat(partitioning.partitions("order-timeout")).isEqualTo(4);
			assertThat(partitioning.partitions("other")).isEqualTo(1);
			assertThat(codedContainer(context, "order-timeout").getPartitions()).isEqualTo(4);
			for (int i = 0; i < 40; i++) {
				context.getBean(DelayedQueue.class).schedule("order-timeout", "o-" + i, "x", Duration.ofMinutes(1));
			}
			assertThat(redis.get().call("EXISTS", "dq:{order-timeout#3}:body:0")).isEqualTo("1");
			assertThat(context.getBean(DelayedQueueAdmin.class).stats("order-timeout").waiting()).isEqualTo(40);
		});
		assertStartupFailsNaming("delayqueue.topics.order-timeout.partitions=0",
				"delayqueue.topics.order-timeout.partitions");
		assertStartupFailsNaming("delayqueue.topics[bad{topic}].partitions=2", "partitions");
	}

	@Test
	void thePropertiesDefaultsAreThoseOfThePartsTheyConfigure() {
		this.runner.run((context) -> {
			ListenerOptions options = factory(context).getDefaultOptions();
			ListenerOptions defaults = ListenerOptions.defaults();
			assertThat(options.concurrency()).isEqualTo(defaults.concurrency());
			assertThat(options.visibilityTimeout()).isEqualTo(defaults.visibilityTimeout());
			assertThat(options.maxAttempts()).isEqualTo(defaults.maxAttempts());
			assertThat(options.batchSize()).isEqualTo(defaults.batchSize());
			// the same exponential backoff (compared by its settings: each execution is jittered at random)
			assertThat(((DefaultDeliveryErrorHandler) options.errorHandler()).getBackOff())
				.hasToString(DefaultDeliveryErrorHandler.defaultBackOff().toString())
				.usingRecursiveComparison()
				.isEqualTo(DefaultDeliveryErrorHandler.defaultBackOff());
			DelayQueueProperties properties = new DelayQueueProperties();
			assertThat(properties.getDeadLetter().getMaxCount())
				.isEqualTo(io.github.delayqueue.redis.DeadLetterPolicy.DEFAULT.maxCount());
			assertThat(properties.getDeadLetter().getMaxAge())
				.isEqualTo(io.github.delayqueue.redis.DeadLetterPolicy.DEFAULT.maxAge());
			assertThat(properties.getMaxPayloadSize()).isEqualTo(RedisDelayedQueue.DEFAULT_MAX_PAYLOAD_SIZE);
			assertThat(properties.getWakeUp().getTick()).isEqualTo(WakeUpTimer.DEFAULT_TICK);
			assertThat(properties.getWakeUp().getPollInterval())
				.isEqualTo(WakeUpTimer.DEFAULT_POLL_INTERVAL);
			assertThat(properties.getListener().getShutdownTimeout())
				.isEqualTo(io.github.delayqueue.listener.DelayedListenerContainer.DEFAULT_SHUTDOWN_TIMEOUT);
		});
	}

	private void assertStartupFailsNaming(String property, String name) {
		this.runner.withPropertyValues(property).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(fullMessage(context.getStartupFailure())).contains(name);
		});
	}

	@Test
	void annotatedListenersAreRegisteredWithDefaultsAndOverrides() {
		this.runner
			.withPropertyValues("delayqueue.listener.concurrency=3", "app.topic=from-placeholder", "app.lease-ahead=false")
			.withUserConfiguration(GoodListeners.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
				assertThat(registry.getListenerContainerIds()).containsExactlyInAnyOrder("plain", "from-placeholder");
				ListenerRegistration<?> plain = registry.getListenerContainer("plain").getRegistration();
				assertThat(plain.options().concurrency()).isEqualTo(3);
				assertThat(plain.options().leaseAhead()).isTrue();
				assertThat(plain.payloadType()).isEqualTo(Named.class);
				ListenerRegistration<?> overridden = registry.getListenerContainerForTopic("from-placeholder")
					.getRegistration();
				assertThat(overridden.options().concurrency()).isEqualTo(8);
				assertThat(overridden.options().maxAttempts()).isEqualTo(2);
				assertThat(overridden.options().visibilityTimeout()).isEqualTo(Duration.ofMinutes(2));
				assertThat(overridden.options().leaseAhead()).isFalse();
				Type listOfNamed = GoodListeners.class.getMethod("onList", List.class, DeliveredMessage.class)
					.getGenericParameterTypes()[0];
				assertThat(overridden.payloadType()).isEqualTo(listOfNamed);
			});
	}

	@Test
	void anUnsupportedSignatureFailsStartupNamingBeanAndMethod() {
		this.runner.withUserConfiguration(TwoPayloads.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(fullMessage(context.getStartupFailure())).contains("TwoPayloads'")
				.contains("TwoPayloads.handle")
				.contains("two payload parameters");
		});
		this.runner.withUserConfiguration(ReturnsValue.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(fullMessage(context.getStartupFailure())).contains("ReturnsValue.handle")
				.contains("must return void");
		});
	}

	@Test
	void twoListenersForOneTopicFailStartup() {
		this.runner.withUserConfiguration(DuplicateTopic.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(fullMessage(context.getStartupFailure())).contains("Topic 'same'")
				.contains("one listener per topic")
				.contains("DuplicateTopic.first")
				.contains("DuplicateTopic.second");
		});
	}

	@Test
	void anInvalidTopicOrAttributeFailsStartup() {
		this.runner.withUserConfiguration(InvalidTopic.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(fullMessage(context.getStartupFailure())).contains("InvalidTopic.handle")
				.contains("invalid topic");
		});
		this.runner.withUserConfiguration(InvalidConcurrency.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(fullMessage(context.getStartupFailure())).contains("InvalidConcurrency.handle")
				.contains("invalid concurrency 'lots'");
		});
	}

	private static DefaultDelayedListenerContainerFactory factory(
			org.springframework.context.ApplicationContext context) {
		return context.getBean(DelayQueueConfigUtils.DEFAULT_CONTAINER_FACTORY_BEAN_NAME,
				DefaultDelayedListenerContainerFactory.class);
	}

	private static io.github.delayqueue.listener.DelayedListenerContainer codedContainer(
			org.springframework.context.ApplicationContext context) {
		return codedContainer(context, "coded");
	}

	private static io.github.delayqueue.listener.DelayedListenerContainer codedContainer(
			org.springframework.context.ApplicationContext context, String topic) {
		return factory(context).createListenerContainer(SimpleDelayedListenerEndpoint.of(topic, String.class,
				(payload, message) -> {
				}));
	}

	private static String fullMessage(Throwable failure) {
		StringBuilder message = new StringBuilder();
		for (Throwable current = failure; current != null; current = current.getCause()) {
			message.append(current.getMessage()).append('\n');
		}
		return message.toString();
	}

	record Named(String firstName) {
	}

	@Configuration(proxyBeanMethods = false)
	static class WrappingQueue {

		static final List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();

		/** What a tenant-prefix or auditing wrapper does: every call goes through it to the auto-configured queue. */
		@Bean
		DelayedQueue tenantQueue(RedisDelayedQueue target) {
			return (DelayedQueue) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { DelayedQueue.class }, (proxy, method, args) -> {
						calls.add(method.getName());
						try {
							return method.invoke(target, args);
						}
						catch (java.lang.reflect.InvocationTargetException ex) {
							throw ex.getCause();
						}
					});
		}

	}

	static class UserBeans {

		static final PayloadConverter CONVERTER = PayloadConverter.json();

		@Bean
		PayloadConverter userConverter() {
			return CONVERTER;
		}

		@Bean
		RedisMessageStore userStore(RedisConnectionFactory connectionFactory) {
			return new RedisMessageStore(connectionFactory, "user", io.github.delayqueue.redis.DeadLetterPolicy.DEFAULT);
		}

		@Bean
		DelayedQueue userQueue(RedisMessageStore store) {
			return new RedisDelayedQueue(store, CONVERTER);
		}

		@Bean
		WakeUpTimer userScheduler(RedisConnectionFactory connectionFactory) {
			return new WakeUpTimer(connectionFactory);
		}

		static DefaultDelayedListenerContainerFactory factory;

		@Bean
		DefaultDelayedListenerContainerFactory delayedListenerContainerFactory(RedisMessageStore store,
				WakeUpTimer scheduler) {
			factory = new DefaultDelayedListenerContainerFactory(store, CONVERTER, scheduler);
			return factory;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class GoodListeners {

		@DelayedListener(topic = "plain")
		public void onNamed(Named named) {
		}

		@DelayedListener(topic = "${app.topic}", concurrency = "#{4 * 2}", maxAttempts = "2", visibilityTimeout = "2m",
				leaseAhead = "${app.lease-ahead}")
		public void onList(List<Named> names, DeliveredMessage message) {
		}

	}

	static class TwoPayloads {

		@DelayedListener(topic = "t")
		void handle(String a, String b) {
		}

	}

	static class ReturnsValue {

		@DelayedListener(topic = "t")
		String handle(String a) {
			return a;
		}

	}

	static class DuplicateTopic {

		@DelayedListener(topic = "same")
		void first(String a) {
		}

		@DelayedListener(topic = "same")
		void second(String a) {
		}

	}

	static class InvalidTopic {

		@DelayedListener(topic = "has space")
		void handle(String a) {
		}

	}

	static class InvalidConcurrency {

		@DelayedListener(topic = "t", concurrency = "lots")
		void handle(String a) {
		}

	}

}
