package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One handler thread at a time waits for the due time of a message leased ahead of it (others end, and keep no slot);
 * an arrival nudges it to look again, and a stop ends the wait at once with the message not to be started.
 */
class DueTimeWaitTests {

	private final DueTimeWait wait = new DueTimeWait();

	@Test
	void aMessageDueAlreadyMayStartAtOnce() {
		assertThat(this.wait.await(System.nanoTime() - 1)).isTrue();
		this.wait.end();
		assertThat(this.wait.await(System.nanoTime() - 1)).as("after a stop: nothing starts").isFalse();
	}

	@Test
	void oneThreadWaitsAtATimeAndANudgeSendsItToLookAgain() {
		long hourAhead = System.nanoTime() + TimeUnit.HOURS.toNanos(1);
		CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> this.wait.await(hourAhead));
		await().atMost(Duration.ofSeconds(10)).until(this.wait::isWaiting);

		assertThat(this.wait.await(hourAhead)).as("a second thread ends at once, keeping no slot").isFalse();
		this.wait.nudge();

		assertThat(waited).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(this.wait.isWaiting()).isFalse();
	}

	@Test
	void aMessageDueSoonStartsNoEarlierThanItsDueTime() {
		long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(30);

		assertThat(this.wait.await(due)).isTrue();

		assertThat(System.nanoTime()).isGreaterThanOrEqualTo(due);
	}

	@Test
	void shortWaitsLearnHowLateAParkWakesAndStartNoneEarly() {
		assertThat(this.wait.earlyWakeNanos()).isZero();
		for (int i = 0; i < 300; i++) {
			long due = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(500);

			assertThat(this.wait.await(due)).isTrue();

			assertThat(System.nanoTime()).as("wait %d", i).isGreaterThanOrEqualTo(due);
		}
		// a park wakes late by the operating system's timer slack at least: the later waits park short of their due
		// time and yield the rest
		assertThat(this.wait.earlyWakeNanos()).isPositive();
	}

	@Test
	void aStopEndsAWaitAtOnceAndTheMessageIsNotStarted() {
		CompletableFuture<Boolean> waited = CompletableFuture
			.supplyAsync(() -> this.wait.await(System.nanoTime() + TimeUnit.HOURS.toNanos(1)));
		await().atMost(Duration.ofSeconds(10)).until(this.wait::isWaiting);

		this.wait.end();

		assertThat(waited).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
		assertThat(this.wait.isWaiting()).isFalse();
		assertThat(this.wait.await(System.nanoTime() + TimeUnit.HOURS.toNanos(1)))
			.as("after the stop, a message not due yet does not wait").isFalse();
	}

	@Test
	void anInterruptDoesNotEndTheWaitAndIsKept() {
		long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(30);
		Thread.currentThread().interrupt();
		try {
			assertThat(this.wait.await(due)).as("a handler may have left the flag set: the message still starts")
				.isTrue();
			assertThat(System.nanoTime()).as("not before its due time").isGreaterThanOrEqualTo(due);
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
		}
	}

}
