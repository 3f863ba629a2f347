package io.github.delayqueue.test.app;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.DelayedQueue;
import io.github.delayqueue.DelayedQueueAdmin;
import io.github.delayqueue.MessageState;
import io.github.delayqueue.listener.HandlerTimeoutException;
import io.github.delayqueue.support.DelayQueueMonitor.Outcome;
import io.github.delayqueue.test.DelayQueueTester;
import io.github.delayqueue.test.ReceivedMessage;
import io.github.delayqueue.test.autoconfigure.DelayQueueTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

/**
 * The slice with listeners whose work completes later: the kit records them without making them blocking (their
 * work is not held on a handler thread, the in-flight bound is theirs), and what it offers for blocking listeners
 * (awaiting a topic, the calls and their outcomes, time travel) works for them: success, failure, cancellation,
 * timeout, and a failure before the work exists.
 */
@DelayQueueTest(properties = "delayqueue.listener.backoff.delay=2m")
@Import({ AsyncListeners.class, ReminderListeners.class })
class AsyncDelayQueueTestTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@Autowired
	private DelayedQueue queue;

	@Autowired
	private DelayedQueueAdmin admin;

	@Autowired
	private DelayQueueTester tester;

	@Autowired
	private AsyncListeners listeners;

	@Autowired
	private ReminderListeners blocking;

	@Test
	void asynchronousWorkIsNotHeldOnAHandlerThreadAndIsRecordedWhenItCompletes() throws Exception {
		for (int i = 0; i < 4; i++) {
			this.queue.schedule(AsyncListeners.HELD, "held-" + i, "work " + i, Duration.ofMinutes(10));
		}
		assertThat(this.tester.advance(AsyncListeners.HELD, Duration.ofMinutes(10))).isEqualTo(4);

		// one handler thread, and four messages in flight at once: none of them waits on a thread
		await().atMost(WAIT).until(() -> this.listeners.held().size() == 4);
		assertThat(this.admin.stats(AsyncListeners.HELD).inflight()).isEqualTo(4);
		assertThat(this.listeners.heldThreads()).as("all started by the one handler thread").hasSize(4)
			.containsOnly(this.listeners.heldThreads().get(0));
		assertThat(this.tester.received(AsyncListeners.HELD)).as("nothing completed, nothing recorded yet").isEmpty();
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.tester.awaitIdle(AsyncListeners.HELD, Duration.ofMillis(200)))
			.withMessageContaining("4 in flight")
			.withMessageContaining("its listener's work has not completed");

		List<CompletableFuture<String>> work = new ArrayList<>();
		this.listeners.held().drainTo(work);
		work.forEach((each) -> each.complete("done"));
		this.tester.awaitIdle(AsyncListeners.HELD);

		assertThat(this.tester.received(AsyncListeners.HELD)).hasSize(4).allSatisfy((call) -> {
			assertThat(call.succeeded()).isTrue();
			assertThat(call.outcome()).isEqualTo(Outcome.SUCCESS);
		});
		assertThat(this.tester.payloads(AsyncListeners.HELD, String.class)).containsExactlyInAnyOrder("work 0",
				"work 1", "work 2", "work 3");
		assertThat(this.admin.stats(AsyncListeners.HELD).inflight()).isZero();
	}

	@Test
	void aMonoIsRecordedAsItCompletesBesideABlockingListener() {
		this.queue.schedule(AsyncListeners.MONO, "mono-1", "m", Duration.ofHours(1));
		this.queue.schedule(ReminderListeners.REMINDERS, "blocking-1", new Reminder("b"), Duration.ofHours(1));
		this.tester.advanceAll(Duration.ofHours(1));
		this.tester.awaitIdle(AsyncListeners.MONO);
		this.tester.awaitIdle(ReminderListeners.REMINDERS);

		assertThat(this.tester.received(AsyncListeners.MONO)).singleElement().satisfies((call) -> {
			assertThat(call.id()).isEqualTo("mono-1");
			assertThat(call.outcome()).isEqualTo(Outcome.SUCCESS);
		});
		assertThat(this.tester.received(ReminderListeners.REMINDERS)).extracting(ReceivedMessage::id)
			.containsExactly("blocking-1");
		assertThat(this.blocking.reminded()).contains(new Reminder("b"));
	}

	@Test
	void failedWorkIsRecordedWithItsFailureAndItsRetryIsTimeTravelled() {
		this.queue.schedule(AsyncListeners.FAILING, "fail-1", "boom", Duration.ofMinutes(5));
		this.tester.advance(AsyncListeners.FAILING, Duration.ofMinutes(5));
		this.tester.awaitIdle(AsyncListeners.FAILING);
		assertThat(this.tester.received(AsyncListeners.FAILING)).singleElement().satisfies((call) -> {
			assertThat(call.succeeded()).isFalse();
			assertThat(call.failure()).isInstanceOf(IllegalStateException.class).hasMessageContaining("boom");
			assertThat(call.outcome()).isEqualTo(Outcome.RETRY);
		});
		assertThat(this.queue.lookup(AsyncListeners.FAILING, "fail-1").orElseThrow().state())
			.isEqualTo(MessageState.RETRYING);

		assertThat(this.tester.advance(AsyncListeners.FAILING, Duration.ofHours(1))).isOne();
		this.tester.awaitIdle(AsyncListeners.FAILING);
		assertThat(this.tester.received(AsyncListeners.FAILING))
			.extracting(ReceivedMessage::attempt, ReceivedMessage::outcome)
			.containsExactly(tuple(1, Outcome.RETRY), tuple(2, Outcome.DEAD));
		this.admin.purgeDeadLetters(AsyncListeners.FAILING);
	}

	@Test
	void cancelledWorkIsRecordedAsACancellation() {
		this.queue.schedule(AsyncListeners.CANCELLED, "cancel-1", "c", Duration.ofMinutes(1));
		this.tester.fireNow(AsyncListeners.CANCELLED, "cancel-1");
		this.tester.awaitIdle(AsyncListeners.CANCELLED);
		assertThat(this.tester.received(AsyncListeners.CANCELLED)).singleElement().satisfies((call) -> {
			assertThat(call.failure()).isInstanceOf(CancellationException.class);
			assertThat(call.cancelled()).isTrue();
			assertThat(call.timedOut()).isFalse();
			assertThat(call.outcome()).isEqualTo(Outcome.DEAD);
		});
		this.admin.purgeDeadLetters(AsyncListeners.CANCELLED);
	}

	@Test
	void workPastTheHandlerTimeoutIsRecordedAsATimeoutAndTheListenersWorkIsCancelled() throws Exception {
		this.queue.schedule(AsyncListeners.NEVER, "never-1", "n", Duration.ofMinutes(1));
		this.tester.fireNow(AsyncListeners.NEVER, "never-1");
		this.tester.awaitIdle(AsyncListeners.NEVER);
		assertThat(this.tester.received(AsyncListeners.NEVER)).singleElement().satisfies((call) -> {
			assertThat(call.failure()).isInstanceOf(HandlerTimeoutException.class).hasMessageContaining("'never-1'");
			assertThat(call.timedOut()).isTrue();
			assertThat(call.cancelled()).isFalse();
			assertThat(call.outcome()).isEqualTo(Outcome.DEAD);
		});
		assertThat(this.listeners.never()).singleElement()
			.satisfies((work) -> assertThat(work.isCancelled()).as("the listener's own work is cancelled").isTrue());
		this.admin.purgeDeadLetters(AsyncListeners.NEVER);
	}

	@Test
	void aListenerThrowingBeforeItsWorkExistsIsRecordedAsAFailure() {
		this.queue.schedule(AsyncListeners.THROWS, "throws-1", "t", Duration.ofMinutes(1));
		this.tester.fireNow(AsyncListeners.THROWS, "throws-1");
		this.tester.awaitIdle(AsyncListeners.THROWS);
		assertThat(this.tester.received(AsyncListeners.THROWS)).singleElement().satisfies((call) -> {
			assertThat(call.failure()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no work for t");
			assertThat(call.outcome()).isEqualTo(Outcome.DEAD);
		});
		this.admin.purgeDeadLetters(AsyncListeners.THROWS);
	}

}
