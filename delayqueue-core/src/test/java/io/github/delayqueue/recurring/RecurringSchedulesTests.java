package io.github.delayqueue.recurring;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.RedisMessageStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Recurring schedules fire once per tick however many instances run, follow edits from the next tick, pause and
 * resume, deal with missed ticks as their policy says, and tick across daylight-saving changes as Spring's cron does.
 */
class RecurringSchedulesTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private static final Duration WAIT = Duration.ofSeconds(30);

	private RedisFixture fixture;

	private final List<RedisRecurringSchedules> running = new ArrayList<>();

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
	}

	@AfterEach
	void tearDown() {
		this.running.forEach(RedisRecurringSchedules::stop);
		this.fixture.close();
	}

	@Test
	void twoInstancesFireEveryTickExactlyOnce() {
		Map<String, AtomicInteger> ticks = new ConcurrentHashMap<>();
		List<String> payloads = new CopyOnWriteArrayList<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("report", String.class,
				(String payload, DeliveredMessage message) -> {
					ticks.computeIfAbsent(message.headers().get(RecurringSchedules.TICK_HEADER),
							(tick) -> new AtomicInteger()).incrementAndGet();
					payloads.add(payload);
					assertThat(message.headers()).containsEntry(RecurringSchedules.SCHEDULE_HEADER, "every-200ms");
					assertThat(message.dueAt().toString()).isEqualTo(message.headers().get(RecurringSchedules.TICK_HEADER));
				}));
		RedisRecurringSchedules first = instance(Clock.systemUTC());
		RedisRecurringSchedules second = instance(Clock.systemUTC());
		first.define(RecurringSchedule.builder("every-200ms", "report").every(Duration.ofMillis(200)).payload("v1").build());
		first.start();
		second.start();

		await().atMost(WAIT).until(() -> ticks.size() >= 25);
		assertThat(ticks.values()).allSatisfy((count) -> assertThat(count.get()).as("one delivery per tick").isEqualTo(1));
		List<Instant> fired = ticks.keySet().stream().map(Instant::parse).sorted().toList();
		for (int i = 1; i < fired.size(); i++) {
			assertThat(Duration.between(fired.get(i - 1), fired.get(i))).as("no tick skipped")
				.isEqualTo(Duration.ofMillis(200));
		}

		// an edit takes effect from the next tick, on every instance
		second.define(RecurringSchedule.builder("every-200ms", "report").every(Duration.ofMillis(200)).payload("v2").build());
		int before = payloads.size();
		await().atMost(WAIT).until(() -> payloads.size() >= before + 5 && payloads.get(payloads.size() - 1).equals("v2"));
		assertThat(payloads.subList(payloads.size() - 3, payloads.size())).containsOnly("v2");
		assertThat(ticks.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	@Test
	void aNewScheduleStartsWithItsNextTickStoredAheadOfTime() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:30Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());

		assertThat(schedules.fireDue()).as("the next tick is 30 s away: not yet").isZero();
		clock.set(Instant.parse("2027-11-24T10:00:59.950Z"));
		assertThat(schedules.fireDue()).isEqualTo(1);
		assertThat(schedules.fireDue()).as("stored once").isZero();
		assertThat(waitingIds("t")).containsExactly("minutely@" + Instant.parse("2027-11-24T10:01:00Z").toEpochMilli());
		assertThat(schedules.get("minutely")).hasValueSatisfying((info) -> {
			assertThat(info.lastTick()).isEqualTo(Instant.parse("2027-11-24T10:01:00Z"));
			assertThat(info.nextTick()).isEqualTo(Instant.parse("2027-11-24T10:01:00Z"));
			assertThat(info.paused()).isFalse();
			assertThat(info.payloadJson()).isEqualTo("\"x\"");
		});
	}

	@Test
	void anIntervalShorterThanThePollLosesNoTick() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:00.050Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.setPollInterval(RedisRecurringSchedules.DEFAULT_POLL_INTERVAL);
		schedules.define(RecurringSchedule.builder("fast", "t").every(Duration.ofMillis(100)).payload("x")
			.missedTicks(MissedTicks.SKIP).build());
		assertThat(schedules.fireDue()).as("every tick of the next two polls").isEqualTo(10);
		clock.set(Instant.parse("2027-11-24T10:00:00.550Z"));
		assertThat(schedules.fireDue()).isEqualTo(5);
		List<String> ids = waitingIds("t");
		assertThat(ids).hasSize(15);
		for (int i = 1; i <= 15; i++) {
			assertThat(ids).contains(RedisRecurringSchedules.tickId("fast",
					Instant.parse("2027-11-24T10:00:00Z").plusMillis(100L * i)));
		}
	}

	@Test
	void aTickALittleLateBecauseAPollWasLateStillFiresUnderSkip() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:30Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x")
			.missedTicks(MissedTicks.SKIP).build());
		assertThat(schedules.fireDue()).isZero();
		// the poll that should have stored 10:01 ahead came 300 ms late (a GC pause, a slow Redis)
		clock.set(Instant.parse("2027-11-24T10:01:00.300Z"));
		assertThat(schedules.fireDue()).isEqualTo(1);
		assertThat(waitingIds("t")).containsExactly(tickId("2027-11-24T10:01:00Z"));
	}

	@Test
	void aTickComputedFromADefinitionThatChangedMeanwhileIsRefused() {
		RecurringStore store = new RecurringStore(this.fixture.connectionFactory(), RedisFixture.PREFIX);
		store.changed("t", "edited", "new-digest", true, Instant.parse("2027-11-24T10:00:00Z").toEpochMilli(), List.of());
		NewMessage tick = tick("edited@1", Instant.parse("2027-11-24T10:01:00Z").toEpochMilli());
		assertThat(store.tick("t", "edited", tick, "old-digest")).as("read before the edit").isFalse();
		assertThat(waitingIds("t")).isEmpty();
		assertThat(store.tick("t", "edited", tick, "new-digest")).isTrue();
	}

	@Test
	void aTickWakesConsumersOnlyWhenItIsTheNewEarliestMessage() {
		RecurringStore store = new RecurringStore(this.fixture.connectionFactory(), RedisFixture.PREFIX);
		long now = System.currentTimeMillis();
		for (String name : List.of("first", "later", "earlier")) {
			store.changed("t", name, "digest", true, now, List.of());
		}
		List<String> wakes = this.fixture.recordWakes("t");
		assertThat(store.tick("t", "first", tick("first@1", now + 60_000), "digest")).isTrue();
		assertThat(store.tick("t", "later", tick("later@1", now + 120_000), "digest")).isTrue();
		assertThat(store.tick("t", "earlier", tick("earlier@1", now + 30_000), "digest")).isTrue();
		// one channel's messages arrive in order: a wake-up for the later tick would come before the second
		await().atMost(WAIT).until(() -> wakes.size() >= 2);
		assertThat(wakes).hasSize(2);
		assertThat(Long.parseLong(wakes.get(0))).isBetween(50_000L, 60_000L);
		assertThat(Long.parseLong(wakes.get(1))).isBetween(20_000L, 30_000L);
	}

	private static NewMessage tick(String id, long dueMillis) {
		return new NewMessage(id, DueTime.at(dueMillis), Instant.now(), Map.of(), "\"x\"".getBytes());
	}

	@Test
	void missedTicksFollowThePolicy() {
		for (MissedTicks policy : MissedTicks.values()) {
			this.fixture.close();
			redis.get().flush();
			this.fixture = new RedisFixture(redis.get());
			TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
			RedisRecurringSchedules schedules = instance(clock);
			schedules.define(RecurringSchedule.builder("minutely", "t")
				.cron("0 * * * * *")
				.payload("x")
				.missedTicks(policy)
				.maxMissed(3)
				.build());
			assertThat(schedules.fireDue()).isEqualTo(1);
			// no instance ran for ten minutes: ticks 10:02 to 10:10 were missed (10:01 was stored in time)
			clock.set(Instant.parse("2027-11-24T10:10:30Z"));
			int stored = schedules.fireDue();
			List<String> ids = waitingIds("t");
			switch (policy) {
				case SKIP -> assertThat(stored).isZero();
				case FIRE_ONCE -> {
					assertThat(stored).isEqualTo(1);
					assertThat(ids).contains(tickId("2027-11-24T10:10:00Z"));
				}
				case FIRE_EACH -> {
					assertThat(stored).isEqualTo(3);
					assertThat(ids).contains(tickId("2027-11-24T10:08:00Z"), tickId("2027-11-24T10:09:00Z"),
							tickId("2027-11-24T10:10:00Z"));
				}
			}
			clock.set(Instant.parse("2027-11-24T10:10:59.950Z"));
			assertThat(schedules.fireDue()).as(policy + ": then on as usual").isEqualTo(1);
		}
	}

	@Test
	void aPausedScheduleFiresNothingAndItsWaitingTickIsWithdrawn() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x")
			.missedTicks(MissedTicks.SKIP).build());
		assertThat(schedules.fireDue()).isEqualTo(1);
		assertThat(schedules.pause("minutely")).isTrue();
		assertThat(waitingIds("t")).isEmpty();
		clock.set(Instant.parse("2027-11-24T10:01:59.950Z"));
		assertThat(schedules.fireDue()).isZero();
		assertThat(schedules.get("minutely").orElseThrow().nextTick()).isNull();

		assertThat(schedules.resume("minutely")).isTrue();
		assertThat(schedules.fireDue()).isEqualTo(1);
		assertThat(waitingIds("t")).containsExactly(tickId("2027-11-24T10:02:00Z"));
		assertThat(schedules.list()).extracting(RecurringScheduleInfo::name).containsExactly("minutely");

		assertThat(schedules.remove("minutely")).isTrue();
		assertThat(waitingIds("t")).isEmpty();
		assertThat(schedules.list()).isEmpty();
		assertThat(schedules.pause("minutely")).isFalse();
		// defined again, it does not repeat a tick it stored before
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());
		assertThat(schedules.fireDue()).isEqualTo(1);
	}

	@Test
	void acrossDaylightSavingChangesCronTicksAsSpringsCronDoes() {
		ZoneId berlin = ZoneId.of("Europe/Berlin");
		RecurringSchedule nightly = RecurringSchedule.builder("nightly", "t").cron("0 30 2 * * *").zone(berlin)
			.payload("x").build();
		// 2026-03-29: 02:00 jumps to 03:00, so 02:30 does not occur that day
		assertThat(ticks(nightly, ZonedDateTime.of(2026, 3, 28, 0, 0, 0, 0, berlin), 2)).containsExactly(
				Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z"));
		// 2026-10-25: 03:00 goes back to 02:00, so 02:30 occurs twice, and ticks twice
		assertThat(ticks(nightly, ZonedDateTime.of(2026, 10, 24, 12, 0, 0, 0, berlin), 3)).containsExactly(
				Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-25T01:30:00Z"),
				Instant.parse("2026-10-26T01:30:00Z"));
		RecurringSchedule hourly = RecurringSchedule.builder("hourly", "t").cron("0 0 * * * *").zone(berlin)
			.payload("x").build();
		assertThat(ticks(hourly, ZonedDateTime.of(2026, 10, 25, 1, 30, 0, 0, berlin), 3)).as("every hour, also the repeated one")
			.containsExactly(Instant.parse("2026-10-25T00:00:00Z"), Instant.parse("2026-10-25T01:00:00Z"),
					Instant.parse("2026-10-25T02:00:00Z"));

		// and the store fires each of those instants once
		// (2027-10-31 is the next such night: the store's clock must not be behind Redis's)
		TestClock clock = new TestClock(Instant.parse("2027-10-31T00:29:59.950Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.define(nightly);
		assertThat(schedules.fireDue()).isEqualTo(1);
		clock.set(Instant.parse("2027-10-31T01:29:59.950Z"));
		assertThat(schedules.fireDue()).isEqualTo(1);
		assertThat(schedules.fireDue()).isZero();
	}

	@Test
	void badDefinitionsAreRefusedWithAClearMessage() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RecurringSchedule.builder("bad name", "t"))
			.withMessageContaining("' ' at index 3");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RecurringSchedule.builder("n", "t").cron("every minute"))
			.withMessageContaining("Invalid cron expression");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RecurringSchedule.builder("n", "t").every(Duration.ofMillis(10)))
			.withMessageContaining("at least 100ms");
		assertThatIllegalArgumentException().isThrownBy(() -> RecurringSchedule.builder("n", "t").payload("x").build())
			.withMessageContaining("needs a cron expression or an interval");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RecurringSchedule.builder("n", "t").payloadJson("{not json"))
			.withMessageContaining("is not JSON");
	}

	private static List<Instant> ticks(RecurringSchedule schedule, ZonedDateTime from, int count) {
		List<Instant> ticks = new ArrayList<>();
		Instant tick = from.toInstant();
		for (int i = 0; i < count; i++) {
			tick = schedule.nextTick(tick);
			ticks.add(tick);
		}
		return ticks;
	}

	private static String tickId(String instant) {
		return RedisRecurringSchedules.tickId("minutely", Instant.parse(instant));
	}

	private List<String> waitingIds(String topic) {
		String reply = redis.get().call("ZRANGE", RedisFixture.PREFIX + ":{" + topic + "}:pending", "0", "-1");
		return (reply == null || reply.isEmpty()) ? List.of() : List.of(reply.split("\n"));
	}

	private RedisRecurringSchedules instance(Clock clock) {
		LettuceConnectionFactory connectionFactory = this.fixture.connectionFactory();
		RedisMessageStore messages = this.fixture.store(connectionFactory);
		RedisRecurringSchedules schedules = new RedisRecurringSchedules(
				new RecurringStore(connectionFactory, RedisFixture.PREFIX), messages, this.fixture.converter());
		schedules.setClock(clock);
		schedules.setPollInterval(Duration.ofMillis(50));
		this.running.add(schedules);
		return schedules;
	}

	/** A clock the test moves. */
	static final class TestClock extends Clock {

		private volatile Instant now;

		TestClock(Instant now) {
			this.now = now;
		}

		void set(Instant now) {
			this.now = now;
		}

		@Override
		public ZoneId getZone() {
			return ZoneOffset.UTC;
		}

		@Override
		public Clock withZone(ZoneId zone) {
			return this;
		}

		@Override
		public Instant instant() {
			return this.now;
		}

	}

}
