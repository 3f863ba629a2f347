package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.recurring.RedisRecurringSchedules;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The recurring schedules' ticker runs on the application's {@link TaskScheduler} when it has exactly one (its own,
 * or Boot's with {@code @EnableScheduling}), and on a scheduler of its own otherwise.
 */
class RecurringTaskSchedulerTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database(),
				"delayqueue.recurring.poll-interval=50ms");

	@Test
	void runsOnTheApplicationsTaskScheduler() {
		this.runner.withUserConfiguration(OneScheduler.class).run((context) -> {
			RecordingScheduler scheduler = context.getBean(RecordingScheduler.class);
			assertThat(context.getBean(RedisRecurringSchedules.class).isRunning()).isTrue();
			assertThat(scheduler.delays).containsExactly(Duration.ofMillis(50));
			await().atMost(WAIT).until(() -> threadNamed("app-scheduler-"));
		});
	}

	@Test
	void runsOnBootsTaskSchedulerWithEnableScheduling() {
		this.runner.withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class))
			.withUserConfiguration(Scheduling.class)
			.withPropertyValues("spring.task.scheduling.thread-name-prefix=boot-scheduling-")
			.run((context) -> {
				assertThat(context).hasSingleBean(TaskScheduler.class);
				await().atMost(WAIT).until(() -> threadNamed("boot-scheduling-"));
			});
	}

	@Test
	void runsOnASchedulerOfItsOwnWithoutOneOrWithSeveral() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean(TaskScheduler.class);
			await().atMost(WAIT).until(() -> threadNamed("delayqueue-recurring-"));
		});
		await().atMost(WAIT).until(() -> !threadNamed("delayqueue-recurring-"));
		this.runner.withUserConfiguration(TwoSchedulers.class).run((context) -> {
			assertThat(context).hasNotFailed();
			await().atMost(WAIT).until(() -> threadNamed("delayqueue-recurring-"));
			context.getBeansOfType(RecordingScheduler.class)
				.values()
				.forEach((scheduler) -> assertThat(scheduler.delays).isEmpty());
		});
	}

	private static boolean threadNamed(String prefix) {
		return Thread.getAllStackTraces().keySet().stream().anyMatch((thread) -> thread.getName().startsWith(prefix));
	}

	@Configuration(proxyBeanMethods = false)
	static class OneScheduler {

		@Bean
		RecordingScheduler appScheduler() {
			return new RecordingScheduler("app-scheduler-");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoSchedulers {

		@Bean
		RecordingScheduler firstScheduler() {
			return new RecordingScheduler("first-");
		}

		@Bean
		RecordingScheduler secondScheduler() {
			return new RecordingScheduler("second-");
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

	}

	/** A scheduler that records the delays of the tasks it is given. */
	static class RecordingScheduler extends ThreadPoolTaskScheduler {

		final List<Duration> delays = new CopyOnWriteArrayList<>();

		RecordingScheduler(String threadNamePrefix) {
			setThreadNamePrefix(threadNamePrefix);
		}

		@Override
		public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, Duration delay) {
			this.delays.add(delay);
			return super.scheduleWithFixedDelay(task, delay);
		}

	}

}
