package io.github.delayqueue.support.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The non-blocking group commit, with calls whose completion the test controls (so what is in flight is known
 * exactly, with no timing).
 */
class AsyncGroupCommitTests {

	/** The calls made, each completed by the test. */
	private final List<Call> calls = new ArrayList<>();

	private final AsyncGroupCommit<Integer, Integer> commit = new AsyncGroupCommit<>((items) -> {
		Call call = new Call(List.copyOf(items), new CompletableFuture<>());
		this.calls.add(call);
		return call.reply();
	}, 100, 2);

	@Test
	void aLoneSubmissionIsSentAtOnce() throws Exception {
		CompletableFuture<List<Integer>> result = this.commit.submit(List.of(1, 2));

		assertThat(this.calls).singleElement().extracting(Call::items).isEqualTo(List.of(1, 2));
		this.calls.get(0).answer();
		assertThat(result.get(1, TimeUnit.SECONDS)).containsExactly(-1, -2);
		assertThat(this.commit.inFlight()).isZero();
	}

	@Test
	void whatIsSubmittedWhileACallIsInFlightGoesTogetherWhenItCompletesAndEachGetsItsOwn() throws Exception {
		CompletableFuture<List<Integer>> first = this.commit.submit(List.of(0));
		List<CompletableFuture<List<Integer>>> waiting = new ArrayList<>();
		for (int i = 1; i <= 7; i++) {
			waiting.add(this.commit.submit(List.of(i, 10 * i)));
		}
		assertThat(this.calls).as("the others wait for the call in flight").hasSize(1);

		this.calls.get(0).answer();

		assertThat(first.get(1, TimeUnit.SECONDS)).containsExactly(0);
		assertThat(this.calls).hasSize(2);
		assertThat(this.calls.get(1).items()).containsExactly(1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70);
		this.calls.get(1).answer();
		for (int i = 1; i <= 7; i++) {
			assertThat(waiting.get(i - 1).get(1, TimeUnit.SECONDS)).containsExactly(-i, -10 * i);
		}
		assertThat(this.commit.inFlight()).isZero();
	}

	@Test
	void moreThanOneCallCarriesIsSentInUpToTheSlotsAtOnce() {
		this.commit.submit(List.of(0));
		for (int i = 1; i <= 120; i++) {
			this.commit.submit(List.of(i));
		}
		this.calls.get(0).answer();

		assertThat(this.calls).as("two calls in flight, each of at most half of maxItems").hasSize(3);
		assertThat(this.calls.get(1).items()).hasSize(50);
		assertThat(this.calls.get(2).items()).hasSize(50);
		assertThat(this.commit.inFlight()).isEqualTo(2);
		this.calls.get(1).answer();
		assertThat(this.calls.get(3).items()).hasSize(20);
	}

	@Test
	void aFailedCallFailsExactlyTheSubmissionsItCarriedAndTheNextOnesGoOn() throws Exception {
		CompletableFuture<List<Integer>> first = this.commit.submit(List.of(1));
		CompletableFuture<List<Integer>> second = this.commit.submit(List.of(2));

		this.calls.get(0).reply().completeExceptionally(new IllegalStateException("Redis went away"));

		assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> first.get(1, TimeUnit.SECONDS))
			.withCauseInstanceOf(IllegalStateException.class)
			.withMessageContaining("Redis went away");
		assertThat(second).isNotDone();
		this.calls.get(1).answer();
		assertThat(second.get(1, TimeUnit.SECONDS)).containsExactly(-2);
	}

	@Test
	void aCallThatThrowsFailsItsSubmissionsAndFreesItsSlot() {
		AsyncGroupCommit<Integer, Integer> throwing = new AsyncGroupCommit<>((items) -> {
			throw new IllegalArgumentException("cannot send");
		}, 100, 2);

		assertThat(throwing.submit(List.of(1))).isCompletedExceptionally();
		assertThat(throwing.submit(List.of(2))).isCompletedExceptionally();
		assertThat(throwing.inFlight()).isZero();
	}

	private record Call(List<Integer> items, CompletableFuture<List<Integer>> reply) {

		void answer() {
			this.reply.complete(this.items.stream().map((item) -> -item).toList());
		}

	}

}
