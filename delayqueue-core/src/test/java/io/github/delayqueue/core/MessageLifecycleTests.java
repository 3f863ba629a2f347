package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.github.delayqueue.DeadLetter;
import io.github.delayqueue.ExpiryAction;
import io.github.delayqueue.MessageInfo;
import io.github.delayqueue.MessagePage;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ReplaceResult;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.TopicControlState;
import io.github.delayqueue.TopicLimits;
import io.github.delayqueue.TopicPartitioning;
import io.github.delayqueue.WaitingQuery;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.redis.internal.Claim;
import io.github.delayqueue.redis.internal.ClaimedMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Look-up, listing, schedule-or-replace, expiry and the topic controls against a real Redis, through the queue, its
 * admin and the claims consumers make.
 */
class MessageLifecycleTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisMessageStore store;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		this.store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(this.store);
		this.admin = this.fixture.admin(this.store);
	}

	@AfterEach
	void tearDown() {
		this.fixture.close();
	}

	private Claim claim(String topic, int limit) {
		return this.store.leases().claim(topic, limit, 30_000, 3);
	}

	@Test
	void lookupFindsAMessageInEveryStateAndReadsItsPayloadAsAType() {
		this.queue.schedule(ScheduleRequest.builder("look", new Order("o-1", 7))
			.id("waiting")
			.delay(Duration.ofHours(1))
			.header("tenant", "acme")
			.build());
		this.queue.schedule(ScheduleRequest.builder("look", new Order("o-2", 8)).id("busy").build());
		this.queue.schedule(ScheduleRequest.builder("look", new Order("o-3", 9)).id("failing").build());

		Claim claim = claim("look", 2);
		ClaimedMessage failing = claim.messages().stream().filter((m) -> m.id().equals("failing")).findFirst().get();
		this.store.leases().retry("look", failing.lease(), 3_600_000, "java.lang.IllegalStateException: boom");

		MessageInfo waiting = this.queue.lookup("look", "waiting").orElseThrow();
		assertThat(waiting.state()).isEqualTo(MessageState.WAITING);
		assertThat(waiting.dueAt()).isAfter(Instant.now().plus(Duration.ofMinutes(59)));
		assertThat(waiting.headers()).containsEntry("tenant", "acme");
		assertThat(waiting.payload(Order.class)).isEqualTo(new Order("o-1", 7));
		assertThat(waiting.payloadAsString()).contains("\"o-1\"");
		assertThat(waiting.attempts()).isZero();

		assertThat(this.queue.lookup("look", "busy").orElseThrow().state()).isEqualTo(MessageState.IN_FLIGHT);
		MessageInfo retrying = this.admin.lookup("look", "failing").orElseThrow();
		assertThat(retrying.state()).isEqualTo(MessageState.RETRYING);
		assertThat(retrying.attempts()).isEqualTo(1);
		assertThat(retrying.lastError()).contains("boom");

		ClaimedMessage busy = claim.messages().stream().filter((m) -> m.id().equals("busy")).findFirst().get();
		this.store.leases().bury("look", busy.lease(), "gave up");
		MessageInfo dead = this.queue.lookup("look", "busy").orElseThrow();
		assertThat(dead.state()).isEqualTo(MessageState.DEAD);
		assertThat(dead.diedAt()).isNotNull();
		assertThat(dead.dueAt()).isNull();
		assertThat(dead.lastError()).isEqualTo("gave up");

		assertThat(this.queue.lookup("look", "never")).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.lookup("look", "bad id"));
	}

	@Test
	void listingPagesThroughEveryWaitingMessageInDueOrderWithoutRepeatsEvenWhenManyShareADueTime() {
		Instant base = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 2500; i++) {
			// groups of 300 share a due time
			requests.add(ScheduleRequest.builder("list", i).id("m-" + i).dueAt(base.plusSeconds(i / 300)).build());
		}
		this.queue.scheduleAll(requests);

		List<MessageInfo> listed = listAll("list", WaitingQuery.first(128));
		assertThat(listed).hasSize(2500);
		assertThat(listed.stream().map(MessageInfo::id).distinct()).hasSize(2500);
		for (int i = 1; i < listed.size(); i++) {
			assertThat(listed.get(i).dueAt()).isAfterOrEqualTo(listed.get(i - 1).dueAt());
		}

		List<MessageInfo> window = listAll("list",
				WaitingQuery.first(100).from(base.plusSeconds(2)).to(base.plusSeconds(3)));
		assertThat(window).hasSize(600).allMatch((m) -> {
			int n = Integer.parseInt(m.id().substring(2));
			return n >= 600 && n < 1200;
		});
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.listWaiting("list", WaitingQuery.first(10).after("not-a-cursor")))
			.withMessageContaining("Not a cursor");
		assertThatIllegalArgumentException().isThrownBy(() -> WaitingQuery.first(0));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> WaitingQuery.first(10).from(base).to(base.minusSeconds(1)));
	}

	@Test
	void aPageGoesOnAfterItsLastMessageWasDeliveredMeanwhile() {
		Instant due = Instant.now().plus(Duration.ofHours(1));
		for (int i = 0; i < 10; i++) {
			this.queue.schedule(ScheduleRequest.builder("gone", i).id("g-" + i).dueAt(due).build());
		}
		MessagePage first = this.admin.listWaiting("gone", WaitingQuery.first(4));
		assertThat(first.messages()).extracting(MessageInfo::id).containsExactly("g-0", "g-1", "g-2", "g-3");
		assertThat(this.queue.cancel("gone", "g-3")).isTrue();
		MessagePage second = this.admin.listWaiting("gone", WaitingQuery.first(4).after(first.nextCursor()));
		assertThat(second.messages()).extracting(MessageInfo::id).containsExactly("g-4", "g-5", "g-6", "g-7");
	}

	@Test
	void aPartitionedTopicIsLookedUpAndListedAcrossItsPartitions() {
		this.queue.setPartitioning(new TopicPartitioning(java.util.Map.of("split", 4)));
		this.admin.setPartitioning(new TopicPartitioning(java.util.Map.of("split", 4)));
		Instant base = Instant.now().plus(Duration.ofHours(1));
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			requests.add(ScheduleRequest.builder("split", i).id("s-" + i).dueAt(base.plusMillis(i)).build());
		}
		this.queue.scheduleAll(requests);
		assertThat(this.admin.partitions("split")).isEqualTo(4);
		for (int i = 0; i < 500; i += 37) {
			assertThat(this.admin.lookup("split", "s-" + i)).map(MessageInfo::state).contains(MessageState.WAITING);
		}
		List<MessageInfo> listed = listAll("split", WaitingQuery.first(50));
		assertThat(listed).extracting(MessageInfo::id)
			.containsExactlyElementsOf(requests.stream().map(ScheduleRequest::id).toList());
	}

	private List<MessageInfo> listAll(String topic, WaitingQuery query) {
		List<MessageInfo> all = new ArrayList<>();
		MessagePage page = this.admin.listWaiting(topic, query);
		all.addAll(page.messages());
		int pages = 1;
		while (page.nextCursor() != null && pages++ < 1000) {
			page = this.admin.listWaiting(topic, query.after(page.nextCursor()));
			all.addAll(page.messages());
		}
		return all;
	}

	@Test
	void scheduleOrReplaceSchedulesReplacesAWaitingMessageAndLeavesInFlightAndDeadOnesAlone() {
		ScheduleRequest first = ScheduleRequest.builder("debounce", new Order("o-1", 1))
			.id("order-1")
			.delay(Duration.ofMinutes(5))
			.build();
		assertThat(this.queue.scheduleOrReplace(first)).isEqualTo(ReplaceResult.SCHEDULED);
		Instant before = this.queue.lookup("debounce", "order-1").orElseThrow().dueAt();

		ScheduleRequest second = ScheduleRequest.builder("debounce", new Order("o-1", 2))
			.id("order-1")
			.delay(Duration.ofMinutes(10))
			.header("v", "2")
			.build();
		assertThat(this.queue.scheduleOrReplace(second)).isEqualTo(ReplaceResult.REPLACED);
		MessageInfo replaced = this.queue.lookup("debounce", "order-1").orElseThrow();
		assertThat(replaced.payload(Order.class)).isEqualTo(new Order("o-1", 2));
		assertThat(replaced.headers()).containsEntry("v", "2");
		assertThat(replaced.dueAt()).isAfter(before.plus(Duration.ofMinutes(4)));
		assertThat(this.admin.stats("debounce").waiting()).isEqualTo(1);

		this.queue.scheduleOrReplace(ScheduleRequest.builder("debounce", new Order("o-1", 3)).id("order-1").build());
		ClaimedMessage leased = claim("debounce", 1).messages().get(0);
		assertThat(leased.message().payload()).asString().contains("3");
		assertThat(this.queue.scheduleOrReplace(second)).isEqualTo(ReplaceResult.IN_FLIGHT);
		this.store.leases().bury("debounce", leased.lease(), "dead");
		assertThat(this.queue.scheduleOrReplace(second)).isEqualTo(ReplaceResult.DEAD);
		assertThat(this.queue.lookup("debounce", "order-1").orElseThrow().state()).isEqualTo(MessageState.DEAD);

		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.queue.scheduleOrReplace(ScheduleRequest.builder("debounce", "x").build()))
			.withMessageContaining("needs a message id");
	}

	@Test
	void aMessagePastItsDeadlineIsDeadLetteredOrDroppedInsteadOfDelivered() {
		// time enough to store all three before the first two expire, on a loaded machine too
		Instant soon = Instant.now().plusSeconds(2);
		this.queue.schedule(ScheduleRequest.builder("ttl", "late").id("late").expiresAt(soon).build());
		this.queue.schedule(ScheduleRequest.builder("ttl", "dropped")
			.id("dropped")
			.expiresAt(soon, ExpiryAction.DISCARD)
			.build());
		this.queue.schedule(ScheduleRequest.builder("ttl", "fine")
			.id("fine")
			.expiresAt(Instant.now().plus(Duration.ofHours(1)))
			.build());
		assertThat(this.queue.lookup("ttl", "late").orElseThrow().expiresAt()).isNotNull();
		org.awaitility.Awaitility.await().until(() -> Instant.now().isAfter(soon.plusMillis(50)));

		Claim claim = claim("ttl", 10);
		assertThat(claim.expired()).isEqualTo(2);
		assertThat(claim.messages()).extracting(ClaimedMessage::id).containsExactly("fine");
		assertThat(claim.messages().get(0).expiry()).isNotNull();
		List<DeadLetter> dead = this.admin.deadLetters("ttl", 0, 10);
		assertThat(dead).extracting(DeadLetter::id).containsExactly("late");
		assertThat(dead.get(0).error()).startsWith("Expired");
		assertThat(this.queue.lookup("ttl", "dropped")).isEmpty();
		this.store.leases().ack("ttl", List.of(claim.messages().get(0).lease()));
		assertThat(this.queue.lookup("ttl", "late").orElseThrow().expiresAt()).as("kept with the dead letter").isNotNull();
		assertThat(this.admin.replayDeadLetter("ttl", "late")).isTrue();
		assertThat(this.queue.lookup("ttl", "late").orElseThrow().expiresAt()).as("a replay is wanted: no deadline")
			.isNull();
		assertThat(claim("ttl", 10).messages()).extracting(ClaimedMessage::id).containsExactly("late");
		assertThat(RedisFixture.keysOf(redis.get(), "ttl")).noneMatch((key) -> key.endsWith(":expiry"));
	}

	@Test
	void aDeadlineBeforeTheDueTimeIsRefusedAndNothingIsStored() {
		Instant now = Instant.now();
		assertThatIllegalArgumentException().isThrownBy(() -> ScheduleRequest.builder("ttl-bad", "x")
			.dueAt(now.plusSeconds(60))
			.expiresAt(now.plusSeconds(30))
			.build()).withMessageContaining("must be after the due time");
		assertThatIllegalArgumentException().isThrownBy(() -> this.queue.schedule(ScheduleRequest.builder("ttl-bad", "x")
			.delay(Duration.ofMinutes(5))
			.expiresAt(now.plusSeconds(60))
			.build())).withMessageContaining("must be after the due time");
		assertThat(this.admin.stats("ttl-bad").waiting()).isZero();
	}

	@Test
	void aPausedTopicLeasesNothingUntilResumedAndKeepsItsDueTimes() {
		this.queue.schedule(ScheduleRequest.builder("paused", "a").id("a").build());
		TopicControlState paused = this.admin.pause("paused");
		assertThat(paused.paused()).isTrue();
		Claim none = claim("paused", 10);
		assertThat(none.messages()).isEmpty();
		assertThat(none.nextWakeDelayMicros()).as("no wake-up while paused").isEqualTo(-1);
		assertThat(this.queue.lookup("paused", "a").orElseThrow().state()).isEqualTo(MessageState.WAITING);
		assertThat(this.admin.resume("paused").paused()).isFalse();
		assertThat(claim("paused", 10).messages()).extracting(ClaimedMessage::id).containsExactly("a");
	}

	@Test
	void theCapLeasesNoMoreThanItLeavesFreeAndAnAckFreesASlot() {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			requests.add(ScheduleRequest.builder("capped", i).id("c-" + i).build());
		}
		this.queue.scheduleAll(requests);
		this.admin.setLimits("capped", TopicLimits.NONE.withMaxInFlight(3));
		Claim first = claim("capped", 10);
		assertThat(first.messages()).hasSize(3);
		assertThat(first.nextWakeDelayMicros()).as("no busy loop at the cap: the lease deadline").isGreaterThan(1000);
		assertThat(claim("capped", 10).messages()).isEmpty();
		this.store.leases().ack("capped", List.of(first.messages().get(0).lease()));
		assertThat(claim("capped", 10).messages()).hasSize(1);
		assertThat(this.admin.controls("capped").limits().maxInFlight()).isEqualTo(3);
		this.admin.setLimits("capped", TopicLimits.NONE);
		assertThat(claim("capped", 10).messages()).hasSize(6);
	}

	@Test
	void theRateLimitLeasesNoMoreThanItsTokensAndSaysWhenTheNextOneComes() {
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			requests.add(ScheduleRequest.builder("rated", i).id("r-" + i).build());
		}
		this.queue.scheduleAll(requests);
		this.admin.setLimits("rated", TopicLimits.NONE.withRate(5));
		Claim first = claim("rated", 50);
		assertThat(first.messages()).as("a full bucket: one second's starts").hasSize(5);
		Claim second = claim("rated", 50);
		assertThat(second.messages().size()).isLessThanOrEqualTo(1);
		assertThat(second.nextWakeDelayMicros()).as("when the tokens it asked for, at most the burst, have come")
			.isBetween(1L, 1_100_000L);
		assertThat(this.admin.controls("rated").limits().ratePerSecond()).isEqualTo(5.0);
	}

	@Test
	void limitsAreSharedAmongPartitionsAndBadLimitsAreRefused() {
		this.queue.setPartitioning(new TopicPartitioning(java.util.Map.of("wide", 4)));
		this.admin.setPartitioning(new TopicPartitioning(java.util.Map.of("wide", 4)));
		this.queue.schedule("wide", "x", Duration.ofHours(1));
		this.admin.setLimits("wide", TopicLimits.NONE.withRate(10).withMaxInFlight(10));
		TopicControlState state = this.admin.controls("wide");
		assertThat(state.limits().ratePerSecond()).isEqualTo(10.0);
		assertThat(state.limits().maxInFlight()).isEqualTo(10);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.admin.setLimits("wide", TopicLimits.NONE.withMaxInFlight(3)))
			.withMessageContaining("at least one message in flight per partition");
		assertThat(this.admin.controls("wide").limits().maxInFlight()).as("nothing changed").isEqualTo(10);
		assertThatIllegalArgumentException().isThrownBy(() -> TopicLimits.NONE.withRate(-1));
		assertThatIllegalArgumentException().isThrownBy(() -> TopicLimits.NONE.withRate(0));
		assertThatIllegalArgumentException().isThrownBy(() -> TopicLimits.NONE.withMaxInFlight(0));
		assertThatIllegalArgumentException().isThrownBy(() -> this.admin.pause("bad topic"));
		assertThat(this.admin.pause("wide").paused()).isTrue();
		for (int partition = 0; partition < 4; partition++) {
			assertThat(this.store.controls()
				.read(io.github.delayqueue.redis.internal.TopicKeys.partitionName("wide", partition))
				.paused()).isTrue();
		}
	}

	@Test
	void scheduleOrReplaceIsRefusedInsideATransactionForItsAfterCommitTwin() {
		org.springframework.transaction.support.TransactionTemplate template = new org.springframework.transaction.support.TransactionTemplate(
				new org.springframework.transaction.support.AbstractPlatformTransactionManager() {
					@Override
					protected Object doGetTransaction() {
						return new Object();
					}

					@Override
					protected void doBegin(Object transaction, org.springframework.transaction.TransactionDefinition d) {
					}

					@Override
					protected void doCommit(org.springframework.transaction.support.DefaultTransactionStatus s) {
					}

					@Override
					protected void doRollback(org.springframework.transaction.support.DefaultTransactionStatus s) {
					}
				});
		ScheduleRequest request = ScheduleRequest.builder("tx-replace", "v1").id("one").build();
		var outcome = template.execute((status) -> {
			assertThatIllegalStateException().isThrownBy(() -> this.queue.scheduleOrReplace(request));
			var stage = this.queue.scheduleOrReplaceAfterCommit(request);
			assertThat(this.queue.lookup("tx-replace", "one")).isEmpty();
			return stage;
		});
		assertThat(outcome.toCompletableFuture().join()).isEqualTo(ReplaceResult.SCHEDULED);
		Optional<MessageInfo> stored = this.queue.lookup("tx-replace", "one");
		assertThat(stored).isPresent();
		Set<String> seen = new HashSet<>();
		seen.add(stored.get().id());
		assertThat(seen).containsExactly("one");
	}

	@Test
	void underTheCapAClaimWhoseChosenMessagesAllExpiredSaysTheRestIsDueNow() {
		Instant soon = Instant.now().plusMillis(200);
		this.queue.schedule(ScheduleRequest.builder("cap-expired", "e").id("a-1").expiresAt(soon, ExpiryAction.DISCARD).build());
		this.queue.schedule(ScheduleRequest.builder("cap-expired", "e").id("a-2").expiresAt(soon, ExpiryAction.DISCARD).build());
		this.queue.schedule(ScheduleRequest.builder("cap-expired", "m").id("b-1").delay(Duration.ofMillis(1)).build());
		this.admin.setLimits("cap-expired", TopicLimits.NONE.withMaxInFlight(2));
		org.awaitility.Awaitility.await().until(() -> Instant.now().isAfter(soon.plusMillis(50)));
		Claim claim = claim("cap-expired", 10);
		assertThat(claim.expired()).isEqualTo(2);
		assertThat(claim.messages()).isEmpty();
		assertThat(claim.nextWakeDelayMicros()).as("no slot is taken: b-1 is due now, not after a wake that never comes")
			.isZero();
		assertThat(claim("cap-expired", 10).messages()).extracting(ClaimedMessage::id).containsExactly("b-1");
	}

	@Test
	void pagingGoesOnWhenEachPagesLastMessageIsGoneAndHundredsShareADueTime() {
		Instant due = Instant.now().plus(Duration.ofHours(1));
		List<ScheduleRequest> requests = new ArrayList<>();
		for (int i = 0; i < 600; i++) {
			requests.add(ScheduleRequest.builder("same-time", i).id(String.format("m-%03d", i)).dueAt(due).build());
		}
		this.queue.scheduleAll(requests);
		List<String> listed = new ArrayList<>();
		MessagePage page = this.admin.listWaiting("same-time", WaitingQuery.first(2));
		int pages = 0;
		while (pages++ < 1000) {
			page.messages().forEach((m) -> listed.add(m.id()));
			if (page.nextCursor() == null) {
				break;
			}
			// the page's last message is delivered meanwhile: the next page must still start right after it
			this.queue.cancel("same-time", page.messages().get(page.messages().size() - 1).id());
			page = this.admin.listWaiting("same-time", WaitingQuery.first(2).after(page.nextCursor()));
		}
		assertThat(listed).hasSize(600).doesNotHaveDuplicates().isSorted();
	}

	@Test
	void lookupShowsALeaseWhoseRecordCannotBeReadAsInFlight() {
		this.queue.schedule(ScheduleRequest.builder("odd-lease", "x").id("x").build());
		claim("odd-lease", 1);
		redis.get().call("HSET", RedisFixture.PREFIX + ":{odd-lease}:lease", "x", "garbage");
		assertThat(this.queue.lookup("odd-lease", "x")).map(MessageInfo::state).contains(MessageState.IN_FLIGHT);
	}

	@Test
	void aFailureReportedWhileItsHandlerStillRunsMakesTheMessageASuspect() {
		this.queue.schedule(ScheduleRequest.builder("still-running", "x").id("x").build());
		ClaimedMessage leased = claim("still-running", 1).messages().get(0);
		assertThat(this.store.leases().retry("still-running", leased.lease(), 1, "timed out", true)).isTrue();
		assertThat(redis.get().call("SISMEMBER", RedisFixture.PREFIX + ":{still-running}:suspect", "x")).isEqualTo("1");
	}

	@Test
	void controlsOfAPartitionedTopicReachEveryPartitionEvenBeforeItsFirstMessage() {
		RedisDelayedQueueAdmin partitioned = new RedisDelayedQueueAdmin(this.store, this.fixture.converter());
		partitioned.setPartitioning(new TopicPartitioning(java.util.Map.of("fresh", 4)));
		partitioned.registerTopics(List.of("fresh"));
		partitioned.setLimits("fresh", TopicLimits.NONE.withMaxInFlight(8));
		partitioned.pause("fresh");
		for (int partition = 0; partition < 4; partition++) {
			var state = this.store.controls()
				.read(io.github.delayqueue.redis.internal.TopicKeys.partitionName("fresh", partition));
			assertThat(state.cap()).as("partition " + partition).isEqualTo(2L);
			assertThat(state.paused()).isTrue();
		}
	}

	record Order(String id, int amount) {
	}

}
