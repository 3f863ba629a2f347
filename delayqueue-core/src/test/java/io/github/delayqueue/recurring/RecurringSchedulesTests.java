package io.github.delayqueue.recurring;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.payload.PayloadConverter;
import io.github.delayqueue.redis.DueTime;
import io.github.delayqueue.redis.NewMessage;
import io.github.delayqueue.redis.RecurringStore;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.script.DigestUtils;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.unit.DataSize;

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
	void ticksOfAPollThatCameLateFireWhateverThePolicy() {
		for (MissedTicks policy : MissedTicks.values()) {
			this.fixture.close();
			redis.get().flush();
			this.fixture = new RedisFixture(redis.get());
			TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:00.050Z"));
			RedisRecurringSchedules schedules = instance(clock);
			schedules.setPollInterval(RedisRecurringSchedules.DEFAULT_POLL_INTERVAL);
			schedules.define(RecurringSchedule.builder("fast", "t").every(Duration.ofMillis(100)).payload("x")
				.missedTicks(policy).maxMissed(2).build());
			assertThat(schedules.fireDue()).as("the look-ahead: two polls").isEqualTo(10);
			// the next poll comes 1.7 s after this one, not 0.5 s (a GC pause, a slow Redis): 10:00:01.1 to
			// 10:00:02.2 were not stored ahead, and are late, not missed
			clock.set(Instant.parse("2027-11-24T10:00:02.250Z"));
			schedules.fireDue();
			List<String> ids = waitingIds("t");
			for (int i = 1; i <= 32; i++) {
				assertThat(ids).as(policy + ": tick " + i).contains(RedisRecurringSchedules.tickId("fast",
						Instant.parse("2027-11-24T10:00:00Z").plusMillis(100L * i)));
			}
		}
	}

	@Test
	void aTickComputedFromADefinitionThatChangedMeanwhileIsRefused() {
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RecurringStore store = new RecurringStore(messages);
		store.changed("t", "edited", "new-digest", true, Instant.parse("2027-11-24T10:00:00Z").toEpochMilli(), List.of());
		NewMessage tick = tick("edited@1", Instant.parse("2027-11-24T10:01:00Z").toEpochMilli());
		assertThat(messages.messages().tick("t", "edited", tick, "old-digest")).as("read before the edit").isNull();
		assertThat(waitingIds("t")).isEmpty();
		assertThat(messages.messages().tick("t", "edited", tick, "new-digest")).isEqualTo("edited@1");
	}

	@Test
	void aTickWakesConsumersOnlyWhenItIsTheNewEarliestMessage() {
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RecurringStore store = new RecurringStore(messages);
		long now = System.currentTimeMillis();
		for (String name : List.of("first", "later", "earlier")) {
			store.changed("t", name, "digest", true, now, List.of());
		}
		List<String> wakes = this.fixture.recordWakes("t");
		assertThat(messages.messages().tick("t", "first", tick("first@1", now + 60_000), "digest")).isNotNull();
		assertThat(messages.messages().tick("t", "later", tick("later@1", now + 120_000), "digest")).isNotNull();
		assertThat(messages.messages().tick("t", "earlier", tick("earlier@1", now + 30_000), "digest")).isNotNull();
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
	void afterAnOutageOfMillionsOfTicksTheLatestOnesFire() {
		for (MissedTicks policy : List.of(MissedTicks.FIRE_ONCE, MissedTicks.FIRE_EACH)) {
			this.fixture.close();
			redis.get().flush();
			this.fixture = new RedisFixture(redis.get());
			TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:00.950Z"));
			RedisRecurringSchedules schedules = instance(clock);
			schedules.define(RecurringSchedule.builder("secondly", "t").cron("* * * * * *").payload("x")
				.missedTicks(policy).maxMissed(3).build());
			assertThat(schedules.fireDue()).isEqualTo(1);
			// 20 days without an instance: 1.7 million ticks missed
			clock.set(Instant.parse("2027-12-14T10:00:00.500Z"));
			schedules.fireDue();
			List<String> expected = new ArrayList<>(List.of(secondly("2027-11-24T10:00:01Z")));
			List<String> latest = List.of(secondly("2027-12-14T09:59:58Z"), secondly("2027-12-14T09:59:59Z"),
					secondly("2027-12-14T10:00:00Z"));
			expected.addAll((policy == MissedTicks.FIRE_ONCE) ? latest.subList(2, 3) : latest);
			assertThat(waitingIds("t")).as(policy.name()).containsExactlyInAnyOrderElementsOf(expected);
		}
	}

	private static String secondly(String tick) {
		return RedisRecurringSchedules.tickId("secondly", Instant.parse(tick));
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
	void aPauseMadeOnAnotherInstanceWhileOneDefinesIsKept() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules other = instance(clock);
		other.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		AtomicInteger reads = new AtomicInteger();
		RecurringStore racing = new RecurringStore(messages) {
			@Override
			public byte[] get(String name) {
				byte[] read = super.get(name);
				if (reads.incrementAndGet() == 1) {
					// the other instance pauses it between this one's read and write
					assertThat(other.pause(name)).isTrue();
				}
				return read;
			}
		};
		RedisRecurringSchedules defining = instance(clock, racing, this.fixture.queue(messages), TopicPartitioning.NONE);

		defining.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("y").build());
		assertThat(reads).hasValueGreaterThan(1);
		assertThat(other.get("minutely")).hasValueSatisfying((info) -> {
			assertThat(info.paused()).as("still paused").isTrue();
			assertThat(info.payloadJson()).as("and defined anew").isEqualTo("\"y\"");
		});
		assertThat(defining.fireDue()).isZero();
		assertThat(waitingIds("t")).isEmpty();
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
	void ticksAreWrittenThroughTheQueuesWriterCountedObservedAndBoundedLikeEveryMessage() {
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RedisDelayedQueue queue = new RedisDelayedQueue(messages, this.fixture.converter(), DataSize.ofBytes(16));
		List<String> scheduled = new CopyOnWriteArrayList<>();
		queue.setMonitor(new DelayQueueMonitor() {
			@Override
			public void scheduled(String topic, int count) {
				scheduled.add(topic + ":" + count);
			}
		});
		List<DelayedMessageSenderContext> observed = new CopyOnWriteArrayList<>();
		ObservationRegistry observations = ObservationRegistry.create();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {
			@Override
			public void onStop(Observation.Context context) {
				observed.add((DelayedMessageSenderContext) context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return context instanceof DelayedMessageSenderContext;
			}
		});
		queue.setObservationRegistry(observations);
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules schedules = instance(clock, new RecurringStore(messages), queue, TopicPartitioning.NONE);
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());
		schedules.define(RecurringSchedule.builder("too-big", "t").cron("0 * * * * *")
			.payload("a payload over the queue's limit of 16 bytes").build());

		assertThat(schedules.fireDue()).as("the tick within the limit").isEqualTo(1);
		assertThat(waitingIds("t")).containsExactly(tickId("2027-11-24T10:01:00Z"));
		assertThat(scheduled).as("counted as scheduled").containsExactly("t:1");
		assertThat(observed).singleElement().satisfies((context) -> {
			assertThat(context.getTopic()).isEqualTo("t");
			assertThat(context.getMessageId()).isEqualTo(tickId("2027-11-24T10:01:00Z"));
		});
	}

	@Test
	void instancesWithDifferentPartitionCountsFireEachTickOnce() {
		// a rolling deploy that changes the topic's partition count: "minutely" hashes to partition 3 of 4
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules one = instance(clock, TopicPartitioning.NONE);
		RedisRecurringSchedules four = instance(clock, new TopicPartitioning(Map.of("t", 4)));
		RecurringSchedule minutely = RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build();
		one.define(minutely);
		four.define(minutely);
		assertThat(one.fireDue() + four.fireDue()).isEqualTo(1);
		clock.set(Instant.parse("2027-11-24T10:01:59.950Z"));
		assertThat(four.fireDue() + one.fireDue()).isEqualTo(1);
		List<String> everywhere = new ArrayList<>();
		for (String partition : List.of("t", "t#1", "t#2", "t#3")) {
			everywhere.addAll(waitingIds(partition));
		}
		assertThat(everywhere).containsExactlyInAnyOrder(tickId("2027-11-24T10:01:00Z"), tickId("2027-11-24T10:02:00Z"));
		assertThat(one.get("minutely").orElseThrow().lastTick()).isEqualTo(Instant.parse("2027-11-24T10:02:00Z"));
		assertThat(four.get("minutely").orElseThrow().lastTick()).isEqualTo(Instant.parse("2027-11-24T10:02:00Z"));
	}

	@Test
	void aCursorKeptInThePartitionOfTheNameByAnEarlierBuildIsHandedOver() {
		// as the build before this one left it: the definition (format 1), and in the partition of the schedule's
		// name by the instance's count (3 of 4 for "minutely") its digest and cursor, the tick of 10:01 stored
		String definition = "{\"version\":1,\"topic\":\"t\",\"cron\":\"0 * * * * *\",\"everyMillis\":null,"
				+ "\"zone\":\"UTC\",\"payload\":\"\\\"x\\\"\",\"missedTicks\":\"FIRE_ONCE\",\"maxMissed\":10,"
				+ "\"paused\":false}";
		String legacy = RedisFixture.PREFIX + ":{t#3}:recurring";
		redis.get().call("HSET", RedisFixture.PREFIX + ":recurring", "minutely", definition);
		redis.get().call("HSET", legacy, "minutely:def", DigestUtils.sha1DigestAsHex(definition), "minutely",
				Long.toString(Instant.parse("2027-11-24T10:01:00Z").toEpochMilli()));
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules schedules = instance(clock, new TopicPartitioning(Map.of("t", 4)));

		assertThat(schedules.list()).singleElement().satisfies((info) -> {
			assertThat(info.cron()).isEqualTo("0 * * * * *");
			assertThat(info.payloadJson()).isEqualTo("\"x\"");
		});
		assertThat(schedules.fireDue()).as("10:01 was stored before").isZero();
		assertThat(schedules.get("minutely").orElseThrow().lastTick()).isEqualTo(Instant.parse("2027-11-24T10:01:00Z"));
		clock.set(Instant.parse("2027-11-24T10:01:59.950Z"));
		assertThat(schedules.fireDue()).isEqualTo(1);
		assertThat(waitingIds("t")).containsExactly(tickId("2027-11-24T10:02:00Z"));
		assertThat(redis.get().call("HGET", legacy, "minutely:def")).as("an earlier build's ticks are refused there")
			.isEqualTo("moved");
	}

	@Test
	void aTickWhoseIdACallersMessageHasIsStoredUnderAnotherAndWithdrawnUnderIt() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());
		String tickId = tickId("2027-11-24T10:01:00Z");
		RedisDelayedQueue queue = this.fixture.queue(this.fixture.store(this.fixture.connectionFactory()));
		queue.schedule(ScheduleRequest.builder("t", "mine").id(tickId).delay(Duration.ofHours(1)).build());

		assertThat(schedules.fireDue()).as("the tick, under another id").isEqualTo(1);
		assertThat(waitingIds("t")).containsExactlyInAnyOrder(tickId, tickId + "~1");
		assertThat(schedules.fireDue()).as("stored once").isZero();

		// an edit withdraws the tick under the id it has, and leaves the caller's message alone
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("y").build());
		assertThat(waitingIds("t")).containsExactly(tickId);
		assertThat(queue.lookup("t", tickId)).hasValueSatisfying(
				(info) -> assertThat(info.payload(String.class)).isEqualTo("mine"));
	}

	@Test
	void aTickThatStaysThroughAnEditIsNotStoredAgain() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisRecurringSchedules schedules = instance(clock);
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());
		assertThat(schedules.fireDue()).isEqualTo(1);
		// the tick failed once and waits for its retry: an edit leaves it
		redis.get().call("HSET", RedisFixture.PREFIX + ":{t}:tries", tickId("2027-11-24T10:01:00Z"), "1");
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("y").build());
		assertThat(schedules.fireDue()).isZero();
		assertThat(waitingIds("t")).containsExactly(tickId("2027-11-24T10:01:00Z"));
	}

	@Test
	void aTickThatAnotherInstanceStoresWhileOneEditsIsStoredOnce() {
		TestClock clock = new TestClock(Instant.parse("2027-11-24T10:00:59.950Z"));
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RedisDelayedQueue queue = this.fixture.queue(messages);
		// the other instance read the definitions before the edit, and stores the tick it computed from them late
		AtomicReference<Map<String, byte[]>> readBeforeTheEdit = new AtomicReference<>();
		RecurringStore otherStore = new RecurringStore(messages) {
			@Override
			public Map<String, byte[]> all() {
				Map<String, byte[]> read = readBeforeTheEdit.get();
				return (read != null) ? read : super.all();
			}
		};
		RedisRecurringSchedules other = instance(clock, otherStore, queue, TopicPartitioning.NONE);
		AtomicBoolean editing = new AtomicBoolean();
		AtomicBoolean raced = new AtomicBoolean();
		RecurringStore editingStore = new RecurringStore(messages) {
			@Override
			public Long cursor(String partition, String name) {
				Long read = super.cursor(partition, name);
				if (editing.get() && raced.compareAndSet(false, true)) {
					// right after the edit read the cursor (to name the waiting ticks), before its rewind
					assertThat(other.fireDue()).as("the other instance stores the next tick").isEqualTo(1);
				}
				return read;
			}
		};
		RedisRecurringSchedules edits = instance(clock, editingStore, queue, TopicPartitioning.NONE);
		edits.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("x").build());
		readBeforeTheEdit.set(new RecurringStore(messages).all());

		editing.set(true);
		edits.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payload("y").build());
		editing.set(false);
		readBeforeTheEdit.set(null);
		assertThat(raced).isTrue();
		edits.fireDue();
		other.fireDue();

		String tickId = tickId("2027-11-24T10:01:00Z");
		assertThat(waitingIds("t")).as("the tick, once").containsExactly(tickId);
		assertThat(queue.lookup("t", tickId)).hasValueSatisfying(
				(info) -> assertThat(info.payload(String.class)).as("as edited").isEqualTo("y"));
	}

	@Test
	void aPayloadThatTheConverterDoesNotWriteAsJsonIsRefusedWhenDefined() {
		PayloadConverter plainText = new PayloadConverter() {
			@Override
			public byte[] write(Object payload) {
				return payload.toString().getBytes(StandardCharsets.UTF_8);
			}

			@Override
			public Object read(byte[] bytes, Type type) {
				return new String(bytes, StandardCharsets.UTF_8);
			}
		};
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RedisRecurringSchedules schedules = new RedisRecurringSchedules(new RecurringStore(messages),
				new RedisDelayedQueue(messages, plainText), plainText);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *")
				.payload("hello").build()))
			.withMessageContaining("is not JSON text");
		assertThat(schedules.list()).isEmpty();
		// given as JSON text, it is kept as it is
		schedules.define(RecurringSchedule.builder("minutely", "t").cron("0 * * * * *").payloadJson("\"hello\"")
			.build());
		assertThat(schedules.get("minutely")).hasValueSatisfying(
				(info) -> assertThat(info.payloadJson()).isEqualTo("\"hello\""));
	}

	@Test
	void theTickerRunsOnTheSchedulerGivenOrOnOneOfItsOwn() {
		List<String> threads = new CopyOnWriteArrayList<>();
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RecurringStore watched = new RecurringStore(messages) {
			@Override
			public Map<String, byte[]> all() {
				threads.add(Thread.currentThread().getName());
				return super.all();
			}
		};
		ThreadPoolTaskScheduler given = new ThreadPoolTaskScheduler();
		given.setThreadNamePrefix("given-");
		given.initialize();
		try {
			RedisRecurringSchedules schedules = instance(Clock.systemUTC(), watched, this.fixture.queue(messages),
					TopicPartitioning.NONE);
			schedules.setTaskScheduler(given);
			schedules.start();
			await().atMost(WAIT).until(() -> threads.size() >= 2);
			schedules.stop();
			assertThat(schedules.isRunning()).isFalse();
			assertThat(threads).allMatch((name) -> name.startsWith("given-"));
			assertThat(given.getScheduledExecutor().isShutdown()).as("the scheduler given is left running").isFalse();
		}
		finally {
			given.shutdown();
		}

		threads.clear();
		RedisRecurringSchedules schedules = instance(Clock.systemUTC(), watched, this.fixture.queue(messages),
				TopicPartitioning.NONE);
		schedules.start();
		await().atMost(WAIT).until(() -> threads.size() >= 2);
		assertThat(threads).allMatch((name) -> name.startsWith("delayqueue-recurring-"));
		schedules.stop();
		await().atMost(WAIT).until(() -> Thread.getAllStackTraces().keySet().stream()
			.noneMatch((thread) -> thread.getName().startsWith("delayqueue-recurring-")));
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
		return List.copyOf(RedisFixture.waiting(redis.get(), RedisFixture.PREFIX + ":{" + topic + "}:pending").keySet());
	}

	private RedisRecurringSchedules instance(Clock clock) {
		return instance(clock, TopicPartitioning.NONE);
	}

	private RedisRecurringSchedules instance(Clock clock, TopicPartitioning partitioning) {
		RedisMessageStore messages = this.fixture.store(this.fixture.connectionFactory());
		RedisDelayedQueue queue = this.fixture.queue(messages);
		queue.setPartitioning(partitioning);
		return instance(clock, new RecurringStore(messages), queue, partitioning);
	}

	private RedisRecurringSchedules instance(Clock clock, RecurringStore store, RedisDelayedQueue queue,
			TopicPartitioning partitioning) {
		RedisRecurringSchedules schedules = new RedisRecurringSchedules(store, queue, this.fixture.converter());
		schedules.setPartitioning(partitioning);
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
