package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The signal between the requests for a partition's next claim and the claiming thread: a request or a close ends a
 * wait at once, a deadline makes a claim wanted, and nothing is taken while closed. And the timing of the next claim:
 * a lookahead of two round trips (1 to 5 ms) before the next due time, never earlier than half the delay.
 */
class NextClaimTests {

	private static final long AN_HOUR = TimeUnit.HOURS.toNanos(1);

	private final NextClaim next = new NextClaim();

	@Test
	void aRequestIsTakenOnceAndOnlyWhileOpen() {
		assertThat(this.next.request()).as("closed: not taken").isFalse();
		assertThat(this.next.take()).isFalse();

		this.next.open();
		assertThat(this.next.isRequested()).as("the request made while closed waits for the open").isTrue();
		assertThat(this.next.take()).isTrue();
		assertThat(this.next.take()).as("taken once").isFalse();

		this.next.requestAgain();
		this.next.close();
		assertThat(this.next.isRequested()).isFalse();
		assertThat(this.next.take()).as("a close drops the request").isFalse();
	}

	@Test
	void aRequestEndsAWaitAtOnce() {
		this.next.open();
		CompletableFuture<Boolean> waited = CompletableFuture
			.supplyAsync(() -> this.next.awaitUntil(System.nanoTime() + AN_HOUR));
		await().atMost(Duration.ofSeconds(10)).until(this.next::isWaiting);

		assertThat(this.next.request()).isTrue();

		assertThat(waited).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(this.next.isWaiting()).isFalse();
		assertThat(this.next.take()).isTrue();
	}

	@Test
	void aCloseEndsAWaitAtOnceWithNothingToTake() {
		this.next.open();
		CompletableFuture<Boolean> waited = CompletableFuture
			.supplyAsync(() -> this.next.awaitUntil(System.nanoTime() + AN_HOUR));
		await().atMost(Duration.ofSeconds(10)).until(this.next::isWaiting);

		this.next.close();

		assertThat(waited).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		assertThat(this.next.take()).isFalse();
	}

	@Test
	void theDeadlineAsksForAClaim() {
		this.next.open();

		assertThat(this.next.awaitUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20))).isTrue();

		assertThat(this.next.take()).isTrue();
	}

	@Test
	void anInterruptedThreadStopsWaitingWithoutAClaim() {
		this.next.open();
		Thread.currentThread().interrupt();
		try {
			assertThat(this.next.awaitUntil(System.nanoTime() + AN_HOUR)).isFalse();
		}
		finally {
			assertThat(Thread.interrupted()).as("the interrupt is kept").isTrue();
		}
		assertThat(this.next.isWaiting()).isFalse();
		assertThat(this.next.take()).isFalse();
	}

	@Test
	void theLookaheadIsTwoRoundTripsBetweenOneAndFiveMilliseconds() {
		assertThat(NextClaim.lookaheadMicros(TimeUnit.MICROSECONDS.toNanos(250))).isEqualTo(1_000);
		assertThat(NextClaim.lookaheadMicros(TimeUnit.MICROSECONDS.toNanos(1_500))).isEqualTo(3_000);
		assertThat(NextClaim.lookaheadMicros(TimeUnit.MILLISECONDS.toNanos(800))).isEqualTo(5_000);
		assertThat(NextClaim.lookaheadMicros(0)).isEqualTo(1_000);
	}

	@Test
	void theNextClaimIsSentTheLookaheadBeforeTheDueTime() {
		assertThat(NextClaim.delayMicros(1_000_000, 2_000)).isEqualTo(998_000);
	}

	@Test
	void aDueTimeCloserThanTheLookaheadIsAimedAtHalfway() {
		assertThat(NextClaim.delayMicros(300, 2_000)).isEqualTo(150);
		assertThat(NextClaim.delayMicros(1, 2_000)).isEqualTo(1);
	}

	@Test
	void successiveEarlyClaimsConvergeOnTheDueTimeWithoutSpinning() {
		// each claim that leases nothing yet returns what is left: the waits shrink, they never reach zero
		long left = 400;
		int claims = 0;
		while (left > 0 && claims < 100) {
			long wait = NextClaim.delayMicros(left, 1_000);
			assertThat(wait).isPositive();
			left -= wait;
			claims++;
		}
		assertThat(claims).isLessThan(12);
	}

}
