package io.github.delayqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.RedisFixture;
import io.github.delayqueue.ScheduleRequest;
import io.github.delayqueue.ScheduleResult;
import io.github.delayqueue.build.redis.TestRedisExtension;
import io.github.delayqueue.redis.RedisMessageStore;
import io.github.delayqueue.support.DelayQueueMonitor;
import io.github.delayqueue.support.micrometer.DelayedMessageSenderContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.r2dbc.h2.H2ConnectionConfiguration;
import io.r2dbc.h2.H2ConnectionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.context.ApplicationListener;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The reactive queue inside reactive transactions (an {@link R2dbcTransactionManager} on H2): its changes follow
 * the commit, as the blocking queue's follow a {@code PlatformTransactionManager}'s.
 */
class ReactiveTransactionTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@RegisterExtension
	static final TestRedisExtension redis = TestRedisExtension.create();

	private RedisFixture fixture;

	private RedisDelayedQueue queue;

	private RedisReactiveDelayedQueue reactive;

	private H2ConnectionFactory database;

	private DatabaseClient client;

	private TransactionalOperator transaction;

	@BeforeEach
	void setUp() {
		this.fixture = new RedisFixture(redis.get());
		RedisMessageStore store = this.fixture.store(this.fixture.connectionFactory());
		this.queue = this.fixture.queue(store);
		this.reactive = new RedisReactiveDelayedQueue(this.queue);
		this.database = new H2ConnectionFactory(H2ConnectionConfiguration.builder()
			.inMemory("orders-" + System.nanoTime())
			.property("DB_CLOSE_DELAY", "-1")
			.build());
		this.client = DatabaseClient.create(this.database);
		this.client.sql("create table orders (id varchar(64) primary key)").then().block(TIMEOUT);
		this.transaction = TransactionalOperator.create(new R2dbcTransactionManager(this.database));
	}

	@AfterEach
	void tearDown() {
		if (!redis.get().isRunning()) {
			redis.get().start();
		}
		this.fixture.close();
		this.client.sql("shutdown").then().onErrorComplete().block(TIMEOUT);
	}

	private Mono<Void> insert(String id) {
		return this.client.sql("insert into orders values (:id)").bind("id", id).then();
	}

	private List<String> orders() {
		return this.client.sql("select id from orders").map((row) -> row.get("id", String.class)).all()
			.collectList()
			.block(TIMEOUT);
	}

	@Test
	void aMessageScheduledInAReactiveTransactionIsStoredWhenItCommitsNotBefore() {
		AtomicReference<ScheduleResult> result = new AtomicReference<>();
		AtomicReference<Boolean> storedBeforeCommit = new AtomicReference<>();

		insert("o-1")
			.then(this.reactive.schedule(ScheduleRequest.builder("order-timeout", "o-1").id("o-1")
				.delay(Duration.ofMinutes(30)).build()))
			.doOnNext(result::set)
			// looked up without blocking: the chain runs on the client's I/O thread, where nothing may block
			.flatMap((held) -> this.reactive.lookup("order-timeout", "o-1")
				.hasElement()
				.doOnNext(storedBeforeCommit::set)
				.thenReturn(held))
			.as(this.transaction::transactional)
			.block(TIMEOUT);

		assertThat(storedBeforeCommit.get()).as("held until the commit").isFalse();
		assertThat(orders()).containsExactly("o-1");
		assertThat(result.get().outcome().toCompletableFuture()).as("the transaction completed once written")
			.isCompletedWithValue(true);
		assertThat(this.queue.lookup("order-timeout", "o-1")).isPresent();
	}

	@Test
	void aMessageScheduledInAReactiveTransactionContinuesTheSubscribersTraceAndIsCounted() {
		ObservationRegistry observations = ObservationRegistry.create();
		List<Observation.Context> started = new CopyOnWriteArrayList<>();
		observations.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStart(Observation.Context context) {
				started.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		this.queue.setObservationRegistry(observations);
		Map<String, Integer> scheduled = new ConcurrentHashMap<>();
		this.queue.setMonitor(new DelayQueueMonitor() {

			@Override
			public void scheduled(String topic, int count) {
				scheduled.merge(topic, count, Integer::sum);
			}

		});
		Observation request = Observation.start("request", observations);

		insert("o-t")
			.then(this.reactive.schedule(ScheduleRequest.builder("order-timeout", "o-t").id("o-t")
				.delay(Duration.ofMinutes(30)).build()))
			.as(this.transaction::transactional)
			.contextWrite((context) -> context.put("micrometer.observation", request))
			.block(TIMEOUT);
		request.stop();

		assertThat(started).filteredOn((context) -> context instanceof DelayedMessageSenderContext)
			.singleElement()
			.satisfies((context) -> assertThat(context.getParentObservation()).isSameAs(request));
		assertThat(this.queue.lookup("order-timeout", "o-t")).as("written after the commit").isPresent();
		assertThat(scheduled).containsEntry("order-timeout", 1);
	}

	@Test
	void aRollbackWritesNothingAndCancelsThePendingResults() {
		AtomicReference<ScheduleResult> result = new AtomicReference<>();
		AtomicReference<CompletionStage<Boolean>> cancel = new AtomicReference<>();
		this.queue.schedule("order-timeout", "old", "x", Duration.ofMinutes(30));

		Mono<Object> failing = insert("o-2")
			.then(this.reactive.schedule(ScheduleRequest.builder("order-timeout", "o-2").id("o-2").build()))
			.doOnNext(result::set)
			.then(this.reactive.cancelAfterCommit("order-timeout", "old"))
			.doOnNext(cancel::set)
			.then(Mono.error(new IllegalStateException("payment declined")));
		assertThatIllegalStateException().isThrownBy(() -> failing.as(this.transaction::transactional).block(TIMEOUT))
			.withMessage("payment declined");

		assertThat(orders()).isEmpty();
		assertThat(this.queue.lookup("order-timeout", "o-2")).isEmpty();
		assertThat(this.queue.lookup("order-timeout", "old")).as("the cancel was dropped").isPresent();
		assertThat(result.get().outcome().toCompletableFuture()).isCancelled();
		assertThatExceptionOfType(CancellationException.class)
			.isThrownBy(() -> cancel.get().toCompletableFuture().join());
	}

	@Test
	void changesRunAfterTheCommitInTheOrderTheyWereMade() {
		this.queue.schedule("order-timeout", "o-3", "x", Duration.ofMinutes(30));
		AtomicReference<CompletionStage<Boolean>> rescheduled = new AtomicReference<>();
		AtomicReference<CompletionStage<Boolean>> cancelled = new AtomicReference<>();

		insert("o-3")
			.then(this.reactive.rescheduleAfterCommit("order-timeout", "o-3", Duration.ofHours(5)))
			.doOnNext(rescheduled::set)
			.then(this.reactive.cancelAfterCommit("order-timeout", "o-3"))
			.doOnNext(cancelled::set)
			.as(this.transaction::transactional)
			.block(TIMEOUT);

		assertThat(rescheduled.get().toCompletableFuture()).as("first moved").isCompletedWithValue(true);
		assertThat(cancelled.get().toCompletableFuture()).as("then cancelled").isCompletedWithValue(true);
		assertThat(this.queue.lookup("order-timeout", "o-3")).isEmpty();
	}

	@Test
	void methodsWhoseResultCannotBeKnownBeforeTheCommitSignalAnErrorAndChangeNothing() {
		this.queue.schedule("order-timeout", "o-4", "x", Duration.ofMinutes(30));

		assertThatIllegalStateException()
			.isThrownBy(() -> this.reactive.cancel("order-timeout", "o-4").as(this.transaction::transactional)
				.block(TIMEOUT))
			.withMessageContaining("cancelAfterCommit");
		assertThatIllegalStateException()
			.isThrownBy(() -> this.reactive.schedule("order-timeout", "o-5", "x", Duration.ofMinutes(1))
				.as(this.transaction::transactional)
				.block(TIMEOUT));

		assertThat(this.queue.lookup("order-timeout", "o-4")).isPresent();
		assertThat(this.queue.lookup("order-timeout", "o-5")).isEmpty();
	}

	@Test
	void badInputInsideAReactiveTransactionFailsAtTheCallAndRollsItBack() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> insert("o-6").then(this.reactive.schedule("bad topic", "x", Duration.ofMinutes(1)))
				.as(this.transaction::transactional)
				.block(TIMEOUT));

		assertThat(orders()).isEmpty();
		assertThat(redis.get().call("KEYS", "dqtest:*")).isEmpty();
	}

	@Test
	void aWriteThatFailsAfterTheCommitIsLoggedCountedAndPublished() {
		Map<String, Integer> counted = new ConcurrentHashMap<>();
		this.queue.setMonitor(new DelayQueueMonitor() {
			@Override
			public void afterCommitFailed(String topic, String operation, int count) {
				counted.merge(topic + "/" + operation, count, Integer::sum);
			}
		});
		List<AfterCommitFailedEvent> events = new CopyOnWriteArrayList<>();
		try (GenericApplicationContext context = new GenericApplicationContext()) {
			context.addApplicationListener((ApplicationListener<AfterCommitFailedEvent>) events::add);
			context.refresh();
			this.queue.setApplicationEventPublisher(context);
			// the topic is checked (its partition count) before the transaction, as it would be by earlier use
			this.queue.schedule("order-timeout", "warm", "x", Duration.ofMinutes(1));
			AtomicReference<ScheduleResult> result = new AtomicReference<>();

			insert("o-9")
				.then(this.reactive.schedule(ScheduleRequest.builder("order-timeout", "o-9").id("o-9").build()))
				.doOnNext(result::set)
				.doOnNext((held) -> redis.get().stop())
				.as(this.transaction::transactional)
				.block(Duration.ofSeconds(30));

			assertThat(orders()).as("the commit stands").containsExactly("o-9");
			assertThatExceptionOfType(CompletionException.class)
				.isThrownBy(() -> result.get().outcome().toCompletableFuture().join());
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
	void notTransactionAwareActsAtOnceInsideAReactiveTransaction() {
		this.queue.setTransactionAware(false);

		insert("o-7")
			.then(this.reactive.schedule("order-timeout", "o-7", "x", Duration.ofMinutes(1)))
			.flatMap((stored) -> this.reactive.lookup("order-timeout", "o-7").hasElement())
			.doOnNext((found) -> assertThat(found).as("stored at once").isTrue())
			.as(this.transaction::transactional)
			.block(TIMEOUT);

		assertThat(this.queue.lookup("order-timeout", "o-7")).isPresent();
	}

}
