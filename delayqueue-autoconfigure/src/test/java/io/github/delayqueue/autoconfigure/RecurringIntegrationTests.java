package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.build.BootLine;
import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.recurring.RecurringSchedule;
import io.github.delayqueue.recurring.RecurringSchedules;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two applications on one Redis, both declaring the same recurring schedule and both running its listener: every
 * tick is delivered exactly once, an edit made through one takes effect for both from the next tick, and an
 * application started again after ticks were missed fires the latest of them once.
 */
class RecurringIntegrationTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final Map<Instant, AtomicInteger> ticks = new ConcurrentHashMap<>();

	private static final List<String> payloads = new CopyOnWriteArrayList<>();

	/** Ticks stored once they were due: the catch-up of missed ticks. */
	private static final List<Instant> caughtUp = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(BootLine.redisAndJackson(DelayQueueAutoConfiguration.class)))
		.withUserConfiguration(PulseListener.class)
		.withPropertyValues("spring.data.redis.host=" + redis.get().host(),
				"spring.data.redis.port=" + redis.get().port(), "spring.data.redis.database=" + redis.get().database(),
				"delayqueue.recurring.poll-interval=50ms", "delayqueue.recurring.schedules.pulse.topic=pulses",
				"delayqueue.recurring.schedules.pulse.every=200ms",
				"delayqueue.recurring.schedules.pulse.payload=\"v1\"");

	@BeforeEach
	void clear() {
		ticks.clear();
		payloads.clear();
		caughtUp.clear();
	}

	@Test
	void twoApplicationsDeliverEveryTickOnceFollowAnEditAndCatchUpAfterARestart() {
		this.application.run((first) -> this.application.run((second) -> {
			await().atMost(WAIT).until(() -> ticks.size() >= 22);
			assertThat(ticks.values()).allSatisfy((count) -> assertThat(count.get()).as("one delivery per tick")
				.isEqualTo(1));
			List<Instant> fired = ticks.keySet().stream().sorted().toList();
			for (int i = 1; i < fired.size(); i++) {
				assertThat(Duration.between(fired.get(i - 1), fired.get(i))).as("no tick missed").isEqualTo(
						Duration.ofMillis(200));
			}

			second.getBean(RecurringSchedules.class).define(RecurringSchedule.builder("pulse", "pulses")
				.every(Duration.ofMillis(200))
				.payloadJson("\"v2\"")
				.build());
			int before = payloads.size();
			await().atMost(WAIT).until(() -> payloads.size() >= before + 5);
			assertThat(payloads.subList(payloads.size() - 3, payloads.size())).containsOnly("v2");
		}));
		int delivered = ticks.size();
		assertThat(ticks.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));

		// both stopped; ticks pass unfired, then one application starts again, declaring what is stored (an edited
		// declaration would start the schedule afresh)
		Instant stopped = Instant.now();
		await().atMost(WAIT).until(() -> Instant.now().isAfter(stopped.plusMillis(1500)));
		Instant restarting = Instant.now();
		this.application
			.withPropertyValues("delayqueue.recurring.schedules.pulse.payload=\"v2\"",
					"delayqueue.recurring.schedules.pulse.missed-ticks=fire-once")
			.run((again) -> {
				await().atMost(WAIT).until(() -> ticks.size() >= delivered + 3);
				assertThat(ticks.keySet()).as("the older missed ticks are not fired")
					.noneMatch((tick) -> tick.isAfter(stopped.plusMillis(400))
							&& tick.isBefore(restarting.minusMillis(300)));
				assertThat(caughtUp).as("the latest missed tick is fired, late")
					.anyMatch((tick) -> tick.isAfter(stopped) && tick.isBefore(restarting.plusSeconds(5)));
				assertThat(ticks.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
			});
	}

	static class PulseListener {

		@DelayedListener(topic = "pulses")
		void onPulse(String payload, DeliveredMessage message) {
			ticks.computeIfAbsent(Instant.parse(message.headers().get(RecurringSchedules.TICK_HEADER)),
					(tick) -> new AtomicInteger()).incrementAndGet();
			payloads.add(payload);
			// a missed tick is stored at or after its due time: within the same millisecond when the first poll after
			// the restart falls in it (createdAt is kept in milliseconds); a look-ahead tick always before it
			if (!message.createdAt().isBefore(message.dueAt())) {
				caughtUp.add(message.dueAt());
			}
		}

	}

}
