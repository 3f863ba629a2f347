package io.github.delayqueue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.core.RedisDelayedQueue;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.core.RedisDelayedQueueAdmin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bad-input catalogue of docs/RELIABILITY.md, row by row: each input is refused with the error the catalogue
 * quotes, before anything reaches Redis (no key of the topic, not even the set of known topics).
 */
class BadInputTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore queueStore = this.fixture.store(this.fixture.connectionFactory());
		this.queue = new RedisDelayedQueue(queueStore, this.fixture.converter(), DataSize.ofBytes(64));
		this.admin = new RedisDelayedQueueAdmin(queueStore, this.fixture.converter());
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	static Stream<Arguments> badInputs() {
		return Stream.of(
				bad("a topic with a space", IllegalArgumentException.class,
						"Topic 'bad topic' may only contain letters, digits and the characters . _ : - (no spaces or braces)",
						(q) -> q.schedule("bad topic", "x", Duration.ZERO)),
				bad("a topic with braces", IllegalArgumentException.class,
						"Topic 'a{b}' may only contain letters, digits and the characters . _ : - (no spaces or braces)",
						(q) -> q.schedule("a{b}", "x", Duration.ZERO)),
				bad("a blank topic", IllegalArgumentException.class, "Topic must not be blank",
						(q) -> q.schedule(" ", "x", Duration.ZERO)),
				bad("a topic of 201 characters", IllegalArgumentException.class,
						"Topic must be at most 200 characters, but has 201",
						(q) -> q.schedule("t".repeat(201), "x", Duration.ZERO)),
				bad("an empty id", IllegalArgumentException.class, "Message id must not be null or empty",
						(q) -> q.schedule("orders", "", "x", Duration.ZERO)),
				bad("an id with white space", IllegalArgumentException.class, "Message id must not contain white space or control characters, but has U+0020 at index 5",
						(q) -> q.schedule("orders", "order 42", "x", Duration.ZERO)),
				bad("a negative delay", IllegalArgumentException.class, "Delay must not be negative, but was PT-1S",
						(q) -> q.schedule("orders", "x", Duration.ofSeconds(-1))),
				bad("a delay over 36,500 days", IllegalArgumentException.class, "Delay PT876024H is longer than the maximum of PT876000H and cannot be represented",
						(q) -> q.schedule("orders", "x", Duration.ofDays(36_501))),
				bad("a due time after the year 9999", IllegalArgumentException.class,
						"Due time +10000-01-01T00:00:00Z is after",
						(q) -> q.scheduleAt("orders", "x", Instant.parse("+10000-01-01T00:00:00Z"))),
				bad("a null payload", IllegalArgumentException.class, "Payload must not be null",
						(q) -> q.schedule("orders", null, Duration.ZERO)),
				bad("a payload over the size limit", PayloadTooLargeException.class,
						"Payload for topic 'orders' is 66 bytes serialised, over the limit of 64 bytes (delayqueue.max-payload-size)",
						(q) -> q.schedule("orders", "x".repeat(64), Duration.ZERO)),
				bad("a payload Jackson cannot write", IllegalArgumentException.class,
						"cannot be serialised as JSON: ",
						(q) -> q.schedule("orders", new Unwritable(), Duration.ZERO)),
				bad("a blank header name", IllegalArgumentException.class, "Header name must not be blank",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").header(" ", "v").build())),
				bad("an expiry deadline before the due time", IllegalArgumentException.class,
						"Expiry deadline 2030-01-01T00:00:30Z must be after the due time 2030-01-01T00:01:00Z",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x")
							.dueAt(Instant.parse("2030-01-01T00:01:00Z"))
							.expiresAt(Instant.parse("2030-01-01T00:00:30Z"))
							.build())),
				bad("an expiry deadline within the delay", IllegalArgumentException.class,
						"must be after the due time (now plus the delay PT5M",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x")
							.delay(Duration.ofMinutes(5))
							.expiresAt(Instant.now().plusSeconds(60))
							.build())),
				bad("schedule or replace without an id", IllegalArgumentException.class,
						"Schedule or replace needs a message id: set one with the builder's id()",
						(q) -> q.scheduleOrReplace(ScheduleRequest.builder("orders", "x").build())),
				bad("an empty group key", IllegalArgumentException.class, "Group key must not be empty",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").group("").build())),
				bad("a group key of 65 characters", IllegalArgumentException.class,
						"Group key is 65 characters long, but may have at most 64",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").group("g".repeat(65)).build())),
				bad("a group key with a space", IllegalArgumentException.class,
						"Group key 'tenant 42' has a character (at 6) that is not printable ASCII: a group key is 1 to 64 characters from '!' to '~', without spaces",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").group("tenant 42").build())),
				bad("a priority of 10", IllegalArgumentException.class,
						"Priority must be from 0 (lowest) to 9 (highest; 4 if unset), but was 10",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").priority(10).build())),
				bad("a priority of -1", IllegalArgumentException.class,
						"Priority must be from 0 (lowest) to 9 (highest; 4 if unset), but was -1",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").priority(-1).build())),
				bad("a priority of 10 on a grouped message", IllegalArgumentException.class,
						"Priority must be from 0 (lowest) to 9 (highest; 4 if unset), but was 10",
						(q) -> q.schedule(ScheduleRequest.builder("orders", "x").group("tenant-42").priority(10).build())),
				bad("one bad request among good ones (scheduleAll)", IllegalArgumentException.class,
						"Delay must not be negative",
						(q) -> q.scheduleAll(List.of(ScheduleRequest.builder("orders", "x").build(),
								ScheduleRequest.builder("orders", "y").delay(Duration.ofSeconds(-1)).build()))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badInputs")
	void isRefusedAndChangesNothing(String input, Class<? extends Throwable> type, String message,
			Consumer<DelayedQueue> call) throws Exception {
		assertThatThrownBy(() -> call.accept(this.queue)).as(input).isInstanceOf(type).hasMessageContaining(message);
		assertThat(redis.get().call("KEYS", RedisFixture.PREFIX + ":*")).as("nothing written").isEmpty();
		String catalogue = Files.readString(Path.of("..", "docs", "RELIABILITY.md")).replaceAll("\\s+", " ");
		assertThat(catalogue).as("docs/RELIABILITY.md quotes the error").contains("| " + input + " |").contains(message);
	}

	static Stream<Arguments> badAdminInputs() {
		return Stream.of(
				badAdmin("pausing an unknown topic", IllegalArgumentException.class,
						"Topic 'never-used' is not known: nothing was ever scheduled to it or consumed from it with this key prefix (check its name)",
						(a) -> a.pause("never-used")),
				badAdmin("limiting an unknown topic", IllegalArgumentException.class, "Topic 'never-used' is not known",
						(a) -> a.setLimits("never-used", TopicLimits.NONE.withMaxInFlight(5))),
				badAdmin("a negative rate limit", IllegalArgumentException.class,
						"Rate limit must be positive and at most 1000000 per second, but was -1.0",
						(a) -> a.setLimits("orders", TopicLimits.NONE.withRate(-1))),
				badAdmin("a cap of zero", IllegalArgumentException.class, "Max in flight must be at least 1, but was 0",
						(a) -> a.setLimits("orders", TopicLimits.NONE.withMaxInFlight(0))),
				badAdmin("a group cap of zero", IllegalArgumentException.class,
						"Group cap must be at least 1, but was 0 (pause the group to stop its deliveries)",
						(a) -> a.setGroupCap("orders", "tenant-42", 0)),
				badAdmin("pausing a group of an unknown topic", IllegalArgumentException.class,
						"Topic 'never-used' is not known", (a) -> a.pauseGroup("never-used", "tenant-42")),
				badAdmin("pausing an empty group key", IllegalArgumentException.class, "Group key must not be empty",
						(a) -> a.pauseGroup("orders", "")),
				badAdmin("a group rate limit of zero", IllegalArgumentException.class,
						"Group rate limit must be positive, but was 0.0 (pause the group to stop its deliveries)",
						(a) -> a.setGroupRate("orders", "tenant-42", 0.0)),
				badAdmin("a negative default group rate limit", IllegalArgumentException.class,
						"Group rate limit must be positive, but was -5.0 (pause the group to stop its deliveries)",
						(a) -> a.setGroupRate("orders", null, -5.0)),
				badAdmin("a group rate limit for an unknown topic", IllegalArgumentException.class,
						"Topic 'never-used' is not known", (a) -> a.setGroupRate("never-used", "tenant-42", 5.0)),
				badAdmin("a null priority mode", IllegalArgumentException.class, "Priority mode must not be null",
						(a) -> a.setPriorityMode("orders", null)),
				badAdmin("a priority mode for an unknown topic", IllegalArgumentException.class,
						"Topic 'never-used' is not known",
						(a) -> a.setPriorityMode("never-used", MessagePriorities.PriorityMode.STRICT)),
				badAdmin("capping an empty group key", IllegalArgumentException.class, "Group key must not be empty",
						(a) -> a.setGroupCap("orders", "", 2)),
				badAdmin("a group weight of zero", IllegalArgumentException.class,
						"Group weight must be between 1 and 100, but was 0",
						(a) -> a.setGroupWeight("orders", "tenant-42", 0)),
				badAdmin("a group weight of 101", IllegalArgumentException.class,
						"Group weight must be between 1 and 100, but was 101",
						(a) -> a.setGroupWeight("orders", "tenant-42", 101)),
				badAdmin("weighting a group key of 65 characters", IllegalArgumentException.class,
						"Group key is 65 characters long, but may have at most 64",
						(a) -> a.setGroupWeight("orders", "g".repeat(65), 2)),
				badAdmin("weighting a group of an unknown topic", IllegalArgumentException.class,
						"Topic 'never-used' is not known", (a) -> a.setGroupWeight("never-used", "tenant-42", 2)),
				badAdmin("a top-groups count of 0", IllegalArgumentException.class,
						"Count must be between 1 and 100, but was 0", (a) -> a.topGroups("orders", 0)),
				badAdmin("a listing cursor that no listing returned", IllegalArgumentException.class,
						"Not a cursor that listWaiting returned: 'bogus'",
						(a) -> a.listWaiting("orders", WaitingQuery.first(10).after("bogus"))),
				badAdmin("a listing page of 0", IllegalArgumentException.class,
						"Limit must be between 1 and 1000, but was 0",
						(a) -> a.listWaiting("orders", WaitingQuery.first(0))));
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badAdminInputs")
	void isRefusedByTheAdminAndChangesNothing(String input, Class<? extends Throwable> type, String message,
			Consumer<DelayedQueueAdmin> call) throws Exception {
		assertThatThrownBy(() -> call.accept(this.admin)).as(input)
			.isInstanceOf(type)
			.hasMessageContaining(message);
		assertThat(redis.get().call("KEYS", RedisFixture.PREFIX + ":*")).as("nothing written").isEmpty();
		String catalogue = Files.readString(Path.of("..", "docs", "RELIABILITY.md")).replaceAll("\\s+", " ");
		assertThat(catalogue).as("docs/RELIABILITY.md quotes the error").contains("| " + input + " |").contains(message);
	}

	private static Arguments badAdmin(String input, Class<? extends Throwable> type, String message,
			Consumer<DelayedQueueAdmin> call) {
		return Arguments.of(input, type, message, call);
	}

	private static Arguments bad(String input, Class<? extends Throwable> type, String message,
			Consumer<DelayedQueue> call) {
		return Arguments.of(input, type, message, call);
	}

	/** A payload whose getter throws: Jackson cannot write it. */
	static final class Unwritable {

		public String getValue() {
			throw new IllegalStateException("not today");
		}

	}

}
