package io.github.delayqueue.test.app;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import io.github.delayqueue.AsyncDelayedQueue;
import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.ReactiveDelayedQueue;
import io.github.delayqueue.TopicStats;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.support.DelayQueueMonitor.Outcome;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ListenerRecorder;
import io.github.delayqueue.test.ReceivedMessage;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import io.github.delayqueue.test.autoconfigure.TestRedisConnectionDetails;
import io.github.delayqueue.test.redis.TestRedisDatabase;
import io.github.delayqueue.test.redis.TestRedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.aop.framework.Advised;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The slice with the listeners of the test's own configuration: time travel on the Redis clock, one message fired
 * by id, retries and dead letters, what the listeners received, and what the slice leaves out.
 */
// a retry waits two minutes: the test travels past it rather than wait
@DelayQueueTest(properties = "delayqueue.listener.backoff.delay=2m")
@Import({ ReminderListeners.class, DelayQueueTestTests.Transactions.class })
class DelayQueueTestTests {

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	@Autowired
	private DelayQueueTester tester;

	@Autowired
	private ReminderListeners listeners;

	@Autowired
	private ApplicationContext context;

	@Autowired
	private TransactionTemplate transaction;

	@Autowired
	private ReactiveDelayedQueue reactiveQueue;

	@Autowired
	private AsyncDelayedQueue asyncQueue;

	@Test
	void theNonBlockingQueuesAreInTheSliceAndTimeTravelReachesWhatTheyScheduled() throws Exception {
		this.reactiveQueue.schedule(ReminderListeners.REMINDERS, "reactive-30m", new Reminder("reactive"),
				Duration.ofMinutes(30)).block(Duration.ofSeconds(10));
		this.asyncQueue.schedule(ReminderListeners.REMINDERS, "async-30m", new Reminder("async"), Duration.ofMinutes(30))
			.get(10, java.util.concurrent.TimeUnit.SECONDS);

		assertThat(this.tester.advance(ReminderListeners.REMINDERS, Duration.ofMinutes(30))).isEqualTo(2);
		this.tester.awaitIdle(ReminderListeners.REMINDERS);

		assertThat(this.listeners.reminded()).contains(new Reminder("reactive"), new Reminder("async"));
		assertThat(this.tester.received(ReminderListeners.REMINDERS)).extracting(ReceivedMessage::id)
			.contains("reactive-30m", "async-30m");
	}

	@Test
	void advanceDeliversWhatIsDueWithinTheDurationAndNothingLater() {
		Instant before = this.tester.redisTime();
		this.queue.schedule(ReminderListeners.REMINDERS, "in-30m", new Reminder("pay"), Duration.ofMinutes(30));
		this.queue.schedule(ReminderListeners.REMINDERS, "in-2h", new Reminder("renew"), Duration.ofHours(2));

		assertThat(this.tester.advance(ReminderListeners.REMINDERS, Duration.ofMinutes(29))).isZero();
		assertThat(this.tester.advance(ReminderListeners.REMINDERS, Duration.ofMinutes(30))).isOne();
		TopicStats idle = this.tester.awaitIdle(ReminderListeners.REMINDERS);

		assertThat(this.listeners.reminded()).contains(new Reminder("pay")).doesNotContain(new Reminder("renew"));
		assertThat(idle.waiting()).as("the 2-hour reminder still waits").isOne();
		assertThat(this.queue.lookup(ReminderListeners.REMINDERS, "in-2h").orElseThrow().dueAt())
			.as("its due time did not move")
			.isAfter(before.plus(Duration.ofMinutes(119)));
		List<ReceivedMessage> received = this.tester.received(ReminderListeners.REMINDERS);
		assertThat(received).singleElement().satisfies((call) -> {
			assertThat(call.id()).isEqualTo("in-30m");
			assertThat(call.attempt()).isOne();
			assertThat(call.payload(Reminder.class)).isEqualTo(new Reminder("pay"));
			assertThat(call.succeeded()).isTrue();
			assertThat(call.outcome()).isEqualTo(Outcome.SUCCESS);
		});
		// waiting took well under a second, not 30 minutes
		assertThat(Duration.between(before, this.tester.redisTime())).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void advanceAllTravelsInEveryKnownTopic() {
		this.queue.schedule(ReminderListeners.REMINDERS, "all", new Reminder("all"), Duration.ofHours(4));
		assertThat(this.tester.advanceAll(Duration.ofHours(4))).isPositive();
		this.tester.awaitIdle(ReminderListeners.REMINDERS);
		assertThat(this.tester.payloads(ReminderListeners.REMINDERS, Reminder.class)).contains(new Reminder("all"));
	}

	@Test
	void fireNowDeliversOneMessageByIdAndRefusesOneThatIsNotWaiting() {
		this.queue.schedule(ReminderListeners.REMINDERS, "one", new Reminder("one"), Duration.ofDays(3));
		this.queue.schedule(ReminderListeners.REMINDERS, "two", new Reminder("two"), Duration.ofDays(3));

		this.tester.fireNow(ReminderListeners.REMINDERS, "two");
		this.tester.awaitIdle(ReminderListeners.REMINDERS);

		assertThat(this.tester.payloads(ReminderListeners.REMINDERS, Reminder.class))
			.containsExactly(new Reminder("two"));
		assertThat(this.queue.lookup(ReminderListeners.REMINDERS, "one").orElseThrow().state())
			.isEqualTo(MessageState.WAITING);
		assertThatIllegalStateException().isThrownBy(() -> this.tester.fireNow(ReminderListeners.REMINDERS, "two"))
			.withMessageContaining("'two'")
			.withMessageContaining("there is none");
		this.queue.cancel(ReminderListeners.REMINDERS, "one");
	}

	@Test
	void retriesAreTimeTravelledTooUntilTheMessageIsDead() {
		this.queue.schedule(ReminderListeners.FLAKY, "f-1", "boom", Duration.ofMinutes(5));
		this.tester.advance(ReminderListeners.FLAKY, Duration.ofMinutes(5));
		this.tester.awaitIdle(ReminderListeners.FLAKY);
		assertThat(this.tester.received(ReminderListeners.FLAKY)).singleElement().satisfies((call) -> {
			assertThat(call.outcome()).isEqualTo(Outcome.RETRY);
			assertThat(call.failure()).isInstanceOf(IllegalStateException.class).hasMessageContaining("boom");
		});
		assertThat(this.queue.lookup(ReminderListeners.FLAKY, "f-1").orElseThrow().state())
			.isEqualTo(MessageState.RETRYING);

		// the retry waits for its back-off on the Redis clock: travel past it
		assertThat(this.tester.advance(ReminderListeners.FLAKY, Duration.ofHours(1))).isOne();
		this.tester.awaitIdle(ReminderListeners.FLAKY);

		assertThat(this.tester.received(ReminderListeners.FLAKY))
			.extracting(ReceivedMessage::attempt, ReceivedMessage::outcome)
			.containsExactly(tuple(1, Outcome.RETRY), tuple(2, Outcome.DEAD));
		assertThat(this.admin.deadLetters(ReminderListeners.FLAKY, 0, 10)).extracting((dead) -> dead.id())
			.contains("f-1");
		this.admin.purgeDeadLetters(ReminderListeners.FLAKY);
	}

	@Test
	void theTesterActsAtOnceInsideATransaction() {
		this.queue.schedule(ReminderListeners.REMINDERS, "tx", new Reminder("tx"), Duration.ofHours(1));
		this.transaction.executeWithoutResult((status) -> {
			// the application's queue would wait for the commit; the tester does not
			assertThatIllegalStateException()
				.isThrownBy(() -> this.queue.reschedule(ReminderListeners.REMINDERS, "tx", Duration.ZERO));
			this.tester.fireNow(ReminderListeners.REMINDERS, "tx");
			this.tester.awaitIdle(ReminderListeners.REMINDERS);
			assertThat(this.tester.payloads(ReminderListeners.REMINDERS, Reminder.class))
				.containsExactly(new Reminder("tx"));
		});
	}

	@Test
	void awaitIdleFailsInTimeSayingWhatIsLeft() {
		this.tester.admin().pause(ReminderListeners.REMINDERS);
		try {
			this.queue.schedule(ReminderListeners.REMINDERS, "paused", new Reminder("later"), Duration.ZERO);
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> this.tester.awaitIdle(ReminderListeners.REMINDERS, Duration.ofMillis(300)))
				.withMessageContaining("1 ready")
				.withMessageContaining("paused");
		}
		finally {
			this.tester.admin().resume(ReminderListeners.REMINDERS);
		}
		this.tester.awaitIdle(ReminderListeners.REMINDERS);
		assertThat(this.tester.payloads(ReminderListeners.REMINDERS, Reminder.class))
			.containsExactly(new Reminder("later"));
	}

	@Test
	void theSliceHoldsTheQueueTheTestRedisAndTheTestsListenersOnly() {
		assertThat(this.context.getBeanProvider(NotAListener.class).getIfAvailable())
			.as("scanned components stay out")
			.isNull();
		TestRedisDatabase redis = this.context.getBean(TestRedisConnectionDetails.class).testRedis();
		assertThat(redis.server()).isSameAs(TestRedisServer.shared());
		assertThat(redis.index()).isBetween(1, TestRedisServer.DATABASES - 1);
		LettuceConnectionFactory connection = this.context.getBean(LettuceConnectionFactory.class);
		assertThat(connection.getPort()).isEqualTo(redis.port());
		assertThat(connection.getDatabase()).isEqualTo(redis.index());

		DefaultDelayedListenerContainerFactory factory = this.context
			.getBean(DefaultDelayedListenerContainerFactory.class);
		assertThat(factory).as("recording, and still of its class").isInstanceOf(Advised.class);
		assertThat(this.context.getBean(ListenerRecorder.class).recording(factory)).as("not wrapped twice")
			.isSameAs(factory);
	}

	@Test
	void eachTestSeesTheCallsOfItsOwnMessagesOnly() {
		assertThat(this.tester.recorder().received()).as("cleared before each test").isEmpty();
	}

	/** A transaction manager with nothing to commit: the test's transactions only. */
	static class Transactions {

		@Bean
		TransactionTemplate transactionTemplate() {
			return new TransactionTemplate(new NothingToCommit());
		}

	}

	/** Transactions with synchronization and no resource. */
	@SuppressWarnings("serial")
	static final class NothingToCommit extends AbstractPlatformTransactionManager
			implements PlatformTransactionManager {

		@Override
		protected Object doGetTransaction() {
			return new Object();
		}

		@Override
		protected void doBegin(Object transaction, TransactionDefinition definition) {
		}

		@Override
		protected void doCommit(DefaultTransactionStatus status) {
		}

		@Override
		protected void doRollback(DefaultTransactionStatus status) {
		}

	}

}
