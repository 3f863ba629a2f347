package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import javax.sql.DataSource;

import io.github.delayqueue.Recorder;
import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.listener.ListenerRegistration;
import io.github.delayqueue.support.DelayQueueMonitor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseBuilder;
import org.springframework.jdbc.datasource.embedded.EmbeddedDatabaseType;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Inside a Spring-managed transaction (a real database's, H2 here) the queue's changes follow the commit: the
 * classic bugs of writing to Redis at once (a timeout for an order that rolled back, a cancel that a rolled-back
 * payment made anyway, a listener that sees a message before its row) cannot happen.
 */
class TransactionTests {

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.appendOnly();

	private static final Duration WAIT = Duration.ofSeconds(20);

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisDelayedQueueAdmin admin;

	private DataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transaction;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		LettuceConnectionFactory connectionFactory = this.fixture.connectionFactory();
		RedisMessageStore queueStore = this.fixture.store(connectionFactory);
		this.queue = this.fixture.queue(queueStore);
		this.admin = this.fixture.admin(queueStore);
		this.dataSource = new EmbeddedDatabaseBuilder().setType(EmbeddedDatabaseType.H2).generateUniqueName(true)
			.build();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("create table orders (id varchar(64) primary key)");
		this.transaction = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
	}

	@AfterEach
	void tearDown() {
		if (!redis.get().isRunning()) {
			redis.get().start();
		}
		this.fixture.close();
		this.jdbc.execute("shutdown");
	}

	@Test
	void aDelayInATransactionCountsFromTheCommit() {
		AtomicReference<ScheduleResult> result = new AtomicReference<>();
		AtomicReference<Instant> committing = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			result.set(this.queue.schedule(ScheduleRequest.builder("order-timeout", "o-1")
				.id("o-1")
				.delay(Duration.ofMillis(500))
				.build()));
			this.jdbc.update("insert into orders values ('o-1')");
			// the transaction's own work takes longer than the delay: it commits once the Redis clock is 600 ms on
			Instant scheduled = this.fixture.redisTime();
			await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> this.fixture.redisTime().isAfter(scheduled.plusMillis(600)));
			committing.set(this.fixture.redisTime());
		});

		assertThat(result.get().outcome().toCompletableFuture().join()).isTrue();
		Instant dueAt = this.queue.lookup("order-timeout", "o-1").orElseThrow().dueAt();
		assertThat(dueAt).as("written after the commit, due the delay after it")
			.isAfterOrEqualTo(committing.get().plusMillis(500));
	}

	@Test
	void aMessageScheduledInATransactionThatRollsBackIsNeverStored() {
		AtomicReference<ScheduleResult> result = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values ('o-1')");
			result.set(this.queue.schedule(ScheduleRequest.builder("order-timeout", "o-1").id("o-1").build()));
			status.setRollbackOnly();
		});

		assertThat(this.admin.stats("order-timeout").waiting()).isZero();
		assertThat(result.get().outcome().toCompletableFuture()).isCancelled();
		// the id was never taken
		assertThat(this.queue.schedule("order-timeout", "o-1", "o-1", Duration.ofMinutes(1))).isTrue();
	}

	@Test
	void aMessageScheduledInATransactionIsStoredOnlyWhenItCommitsAndItsListenerFindsTheRow() {
		List<String> rowsSeen = new CopyOnWriteArrayList<>();
		Recorder<String> recorder = new Recorder<>() {
			@Override
			public void handle(String payload, io.github.delayqueue.DeliveredMessage message) throws Exception {
				rowsSeen.addAll(TransactionTests.this.jdbc.queryForList("select id from orders where id = ?",
						String.class, payload));
				super.handle(payload, message);
			}
		};
		this.fixture.consumer().listeners().register(ListenerRegistration.of("order-timeout", String.class, recorder));
		AtomicReference<ScheduleResult> result = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			this.jdbc.update("insert into orders values ('o-2')");
			result.set(this.queue.schedule(ScheduleRequest.builder("order-timeout", "o-2").id("o-2").build()));
			assertThat(result.get().isPendingCommit()).isTrue();
			assertThatIllegalStateException().isThrownBy(() -> result.get().scheduled())
				.withMessageContaining("o-2")
				.withMessageContaining("outcome()");
			// due at once, yet not in Redis before the commit
			assertThat(this.admin.stats("order-timeout").waiting()).isZero();
			assertThat(RedisFixture.keysOf(redis.get(), "order-timeout")).isEmpty();
		});

		assertThat(result.get().outcome().toCompletableFuture().join()).isTrue();
		await().atMost(WAIT).until(() -> recorder.count("o-2") == 1);
		assertThat(rowsSeen).containsExactly("o-2");
	}

	@Test
	void aCancelInATransactionThatRollsBackChangesNothingAndTheMessageIsStillDelivered() {
		this.queue.schedule("order-timeout", "o-3", "o-3", Duration.ofMillis(300));
		AtomicReference<CompletionStage<Boolean>> cancelled = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			cancelled.set(this.queue.cancelAfterCommit("order-timeout", "o-3"));
			status.setRollbackOnly();
		});
		assertThat(cancelled.get().toCompletableFuture()).isCancelled();

		Recorder<String> recorder = new Recorder<>();
		this.fixture.consumer().listeners().register(ListenerRegistration.of("order-timeout", String.class, recorder));
		await().atMost(WAIT).until(() -> recorder.count("o-3") == 1);
	}

	@Test
	void aCancelAndARescheduleInATransactionRunAfterItCommitsInTheOrderTheyWereMade() {
		this.queue.schedule("order-timeout", "o-4", "o-4", Duration.ofHours(1));
		this.queue.schedule("order-timeout", "o-5", "o-5", Duration.ofHours(1));
		AtomicReference<CompletionStage<Boolean>> cancelled = new AtomicReference<>();
		AtomicReference<CompletionStage<Boolean>> moved = new AtomicReference<>();
		AtomicReference<CompletionStage<Boolean>> missing = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			cancelled.set(this.queue.cancelAfterCommit("order-timeout", "o-4"));
			moved.set(this.queue.rescheduleAfterCommit("order-timeout", "o-5", Duration.ofHours(2)));
			this.queue.schedule(ScheduleRequest.builder("order-timeout", "o-6").id("o-6").delay(Duration.ofHours(1))
				.build());
			missing.set(this.queue.cancelAfterCommit("order-timeout", "o-6"));
			assertThat(this.admin.stats("order-timeout").waiting()).isEqualTo(2);
		});

		assertThat(cancelled.get().toCompletableFuture().join()).isTrue();
		assertThat(moved.get().toCompletableFuture().join()).isTrue();
		assertThat(missing.get().toCompletableFuture().join()).as("scheduled, then cancelled, in that order").isTrue();
		assertThat(this.admin.stats("order-timeout").waiting()).isEqualTo(1);
		assertThat(this.admin.stats("order-timeout").nextDueAt()).isAfter(java.time.Instant.now().plusSeconds(5400));
	}

	@Test
	void methodsWhoseBooleanCannotBeKnownBeforeTheCommitRefuseInsideATransactionAndChangeNothing() {
		this.queue.schedule("order-timeout", "o-7", "o-7", Duration.ofHours(1));
		this.transaction.executeWithoutResult((status) -> {
			assertThatIllegalStateException().isThrownBy(() -> this.queue.cancel("order-timeout", "o-7"))
				.withMessageContaining("cancelAfterCommit");
			assertThatIllegalStateException()
				.isThrownBy(() -> this.queue.reschedule("order-timeout", "o-7", Duration.ZERO))
				.withMessageContaining("rescheduleAfterCommit");
			assertThatIllegalStateException()
				.isThrownBy(() -> this.queue.schedule("order-timeout", "o-8", "o-8", Duration.ZERO))
				.withMessageContaining("schedule(ScheduleRequest)");
		});
		assertThat(this.admin.stats("order-timeout").waiting()).isEqualTo(1);
		assertThat(this.queue.cancel("order-timeout", "o-7")).as("outside a transaction: at once").isTrue();
	}

	@Test
	void badInputInsideATransactionFailsAtTheCallNotAtTheCommit() {
		assertThatThrownBy(() -> this.transaction.executeWithoutResult((status) -> this.queue
			.schedule(ScheduleRequest.builder("bad topic!", "x").build()))).isInstanceOf(IllegalArgumentException.class);
		assertThatThrownBy(() -> this.transaction
			.executeWithoutResult((status) -> this.queue.cancelAfterCommit("order-timeout", "")))
			.isInstanceOf(IllegalArgumentException.class);
	}

	@Test
	void aRequiresNewTransactionCommitsItsOwnMessagesWhileTheSuspendedOneRollsBackItsOwn() {
		TransactionTemplate inner = new TransactionTemplate(this.transaction.getTransactionManager());
		inner.setPropagationBehavior(TransactionDefinition.PROPAGATION_REQUIRES_NEW);
		TransactionTemplate notSupported = new TransactionTemplate(this.transaction.getTransactionManager());
		notSupported.setPropagationBehavior(TransactionDefinition.PROPAGATION_NOT_SUPPORTED);
		this.transaction.executeWithoutResult((status) -> {
			this.queue.schedule(ScheduleRequest.builder("t", "outer").id("outer").delay(Duration.ofHours(1)).build());
			inner.executeWithoutResult((innerStatus) -> this.queue
				.schedule(ScheduleRequest.builder("t", "inner").id("inner").delay(Duration.ofHours(1)).build()));
			assertThat(this.admin.stats("t").waiting()).as("the inner transaction committed its own").isEqualTo(1);
			notSupported.executeWithoutResult((suspended) -> assertThat(
					this.queue.schedule("t", "suspended", "x", Duration.ofHours(1)))
				.as("no transaction while suspended: at once")
				.isTrue());
			assertThat(this.admin.stats("t").waiting()).isEqualTo(2);
			status.setRollbackOnly();
		});
		assertThat(this.queue.cancel("t", "outer")).isFalse();
		assertThat(this.queue.cancel("t", "inner")).isTrue();
		assertThat(this.queue.cancel("t", "suspended")).isTrue();
	}

	@Test
	void aRollbackToASavepointDropsTheChangesMadeAfterItAndKeepsTheOthers() {
		TransactionTemplate nested = new TransactionTemplate(this.transaction.getTransactionManager());
		nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
		AtomicReference<ScheduleResult> dropped = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			this.queue.schedule(ScheduleRequest.builder("t", "before").id("before").delay(Duration.ofHours(1)).build());
			nested.executeWithoutResult((savepoint) -> {
				dropped.set(this.queue
					.schedule(ScheduleRequest.builder("t", "inside").id("inside").delay(Duration.ofHours(1)).build()));
				savepoint.setRollbackOnly();
			});
			nested.executeWithoutResult((savepoint) -> this.queue
				.schedule(ScheduleRequest.builder("t", "kept").id("kept").delay(Duration.ofHours(1)).build()));
			this.queue.schedule(ScheduleRequest.builder("t", "after").id("after").delay(Duration.ofHours(1)).build());
		});
		assertThat(dropped.get().outcome().toCompletableFuture()).isCancelled();
		assertThat(this.queue.cancel("t", "inside")).isFalse();
		assertThat(this.queue.cancel("t", "before")).isTrue();
		assertThat(this.queue.cancel("t", "kept")).isTrue();
		assertThat(this.queue.cancel("t", "after")).isTrue();
	}

	@Test
	void aMessageScheduledFromAnotherSynchronizationsAfterCommitIsStillStored() {
		AtomicReference<ScheduleResult> late = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> TransactionSynchronizationManager
			.registerSynchronization(new TransactionSynchronization() {
				@Override
				public void afterCommit() {
					late.set(TransactionTests.this.queue
						.schedule(ScheduleRequest.builder("t", "late").id("late").delay(Duration.ofHours(1)).build()));
				}
			}));
		assertThat(late.get().outcome().toCompletableFuture().join()).isTrue();
		assertThat(this.queue.cancel("t", "late")).isTrue();
	}

	@Test
	void aWriteThatFailsAfterTheCommitIsLoggedCountedAndPublishedNeverSwallowed() {
		Map<String, Integer> counted = new java.util.concurrent.ConcurrentHashMap<>();
		this.queue.setMonitor(new DelayQueueMonitor() {
			@Override
			public void afterCommitFailed(String topic, String operation, int count) {
				counted.merge(topic + "/" + operation, count, Integer::sum);
			}
		});
		List<AfterCommitFailedEvent> events = new CopyOnWriteArrayList<>();
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.addApplicationListener((org.springframework.context.ApplicationListener<AfterCommitFailedEvent>) events::add);
			context.refresh();
			this.queue.setApplicationEventPublisher(context);
			AtomicReference<ScheduleResult> result = new AtomicReference<>();
			this.transaction.executeWithoutResult((status) -> {
				this.jdbc.update("insert into orders values ('o-9')");
				result.set(this.queue.schedule(ScheduleRequest.builder("order-timeout", "o-9").id("o-9").build()));
				redis.get().stop();
			});

			assertThat(this.jdbc.queryForList("select id from orders", String.class)).as("the commit stands")
				.containsExactly("o-9");
			assertThatThrownBy(() -> result.get().outcome().toCompletableFuture().join())
				.isInstanceOf(CompletionException.class);
			assertThat(events).singleElement().satisfies((event) -> {
				assertThat(event.getOperation()).isEqualTo("schedule");
				assertThat(event.getTopic()).isEqualTo("order-timeout");
				assertThat(event.getIds()).containsExactly("o-9");
				assertThat(event.getSource()).isSameAs(this.queue);
			});
			assertThat(counted).containsEntry("order-timeout/schedule", 1);
		}
	}

	@Test
	void notTransactionAwareActsAtOnceInsideATransaction() {
		this.queue.setTransactionAware(false);
		this.transaction.executeWithoutResult((status) -> {
			assertThat(this.queue.schedule("t", "now", "x", Duration.ofHours(1))).isTrue();
			status.setRollbackOnly();
		});
		assertThat(this.queue.cancel("t", "now")).isTrue();
	}

	@Test
	void aPendingResultIsCancelledOnRollback() {
		AtomicReference<CompletionStage<Boolean>> outcome = new AtomicReference<>();
		this.transaction.executeWithoutResult((status) -> {
			outcome.set(this.queue.schedule(ScheduleRequest.builder("t", "x").build()).outcome());
			status.setRollbackOnly();
		});
		assertThatThrownBy(() -> outcome.get().toCompletableFuture().join())
			.isInstanceOf(CancellationException.class);
	}

}
