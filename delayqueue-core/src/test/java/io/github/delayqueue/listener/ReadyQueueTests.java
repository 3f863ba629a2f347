package io.github.delayqueue.listener;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.redis.internal.ClaimedMessage;
import io.github.delayqueue.redis.internal.Lease;
import io.github.delayqueue.redis.internal.StoredMessage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener's ready queue: what claims lease waits here for a handler thread, a suspect always first; each arrival
 * wakes the handler threads; once closed, it takes nothing more and gives back what waited.
 */
class ReadyQueueTests {

	private final HandlerThreads threads = new HandlerThreads("ready", 2, null, null);

	private final ReadyQueue queue = new ReadyQueue(this.threads, new CrashIsolation());

	@AfterEach
	void tearDown() {
		this.threads.close();
		this.threads.interruptAndRelease();
	}

	@Test
	void aSuspectGoesFirstAndTheBatchedMessagesCanBeTakenOutBeforeItRuns() {
		this.queue.offer(List.of(delivery("batched-1", false, 0), delivery("batched-2", false, 1)));
		// a claim leased a suspect meanwhile: it starts first, while batched messages may not
		this.queue.offer(List.of(delivery("suspect", true, 1)));

		Delivery next = this.queue.poll(false, System.nanoTime());
		assertThat(next).as("the suspect starts while batched messages may not").isNotNull();
		assertThat(next.message().id()).isEqualTo("suspect");
		assertThat(next.partition()).isEqualTo(1);
		assertThat(this.queue.poll(false, System.nanoTime())).isNull();
		// before it runs alone, the batched messages are taken out to be handed back
		assertThat(this.queue.takeBatched()).extracting((delivery) -> delivery.message().id())
			.containsExactly("batched-1", "batched-2");
		assertThat(this.queue.size()).isZero();
		assertThat(this.queue.poll(true, System.nanoTime())).isNull();
	}

	@Test
	void closingGivesBackWhatWaitsTheSuspectFirstAndRefusesWhatComesLater() {
		this.queue.offer(List.of(delivery("a", false, 0), delivery("s", true, 0), delivery("b", false, 1)));
		assertThat(this.queue.size()).isEqualTo(3);
		assertThat(this.queue.hasSuspect()).isTrue();

		List<Delivery> waiting = this.queue.close();

		assertThat(waiting).extracting((delivery) -> delivery.message().id()).containsExactly("s", "a", "b");
		assertThat(this.queue.size()).isZero();
		assertThat(this.queue.hasSuspect()).isFalse();
		assertThat(this.queue.offer(List.of(delivery("late", false, 0)))).as("a claim that ends later").isFalse();
		assertThat(this.queue.poll(true, System.nanoTime())).isNull();
	}

	@Test
	void arrivalsWakeHandlerThreadsThatTakeEverything() {
		List<String> taken = new CopyOnWriteArrayList<>();
		this.threads.open(() -> {
			Delivery next;
			while ((next = this.queue.poll(true, System.nanoTime())) != null) {
				taken.add(next.message().id());
			}
		});
		for (int i = 0; i < 50; i++) {
			this.queue.offer(List.of(delivery("m" + i, false, 0), delivery("n" + i, false, 1)));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> taken.size() == 100);
		assertThat(taken).doesNotHaveDuplicates();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.threads.busy() == 0);
		assertThat(this.queue.size()).isZero();
	}

	@Test
	void aMessageLeasedAheadIsTakenAtItsDueTimeWhileOneThreadWaitsForIt() throws Exception {
		Instant now = Instant.now();
		this.queue.offer(List.of(delivery("ahead", now.plusMillis(1500), now)));
		assertThat(this.queue.poll(true, System.nanoTime())).as("not due yet: not taken").isNull();

		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(this.queue::awaitHeadDue);
		await().atMost(Duration.ofSeconds(10)).until(this.queue::isWaitingForDueTime);
		assertThat(this.queue.awaitHeadDue()).as("a second thread does not wait beside the first: it ends").isFalse();

		assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		Delivery next = this.queue.poll(true, System.nanoTime());
		assertThat(next).isNotNull();
		assertThat(next.message().id()).isEqualTo("ahead");
		assertThat(System.nanoTime() - next.dueNanos()).as("taken no earlier than its due time").isNotNegative();
	}

	@Test
	void aSuspectArrivingWhileAThreadWaitsIsTakenAtOnce() {
		Instant now = Instant.now();
		this.queue.offer(List.of(delivery("ahead", now.plusSeconds(3600), now)));
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(this.queue::awaitHeadDue);
		await().atMost(Duration.ofSeconds(10)).until(this.queue::isWaitingForDueTime);

		this.queue.offer(List.of(delivery("suspect", true, 0)));

		assertThat(waiter).as("the arrival ends the wait").succeedsWithin(Duration.ofSeconds(10)).isEqualTo(true);
		Delivery next = this.queue.poll(true, System.nanoTime());
		assertThat(next).isNotNull();
		assertThat(next.message().id()).isEqualTo("suspect");
		assertThat(this.queue.poll(true, System.nanoTime())).as("the other is not due for an hour").isNull();
	}

	@Test
	void closingEndsTheWaitForADueTime() {
		Instant now = Instant.now();
		this.queue.offer(List.of(delivery("ahead", now.plusSeconds(3600), now)));
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(this.queue::awaitHeadDue);
		await().atMost(Duration.ofSeconds(10)).until(this.queue::isWaitingForDueTime);

		assertThat(this.queue.close()).hasSize(1);

		assertThat(waiter).succeedsWithin(Duration.ofSeconds(10)).isEqualTo(false);
		assertThat(this.queue.awaitHeadDue()).isFalse();
	}

	private static Delivery delivery(String id, Instant dueAt, Instant claimedAt) {
		ClaimedMessage message = new ClaimedMessage(new Lease(id, 1), dueAt, 1,
				new StoredMessage(Instant.now(), Map.of(), "\"x\"".getBytes(), null), false);
		return new Delivery(message, 0, claimedAt, System.nanoTime());
	}

	private static Delivery delivery(String id, boolean suspect, int partition) {
		ClaimedMessage message = new ClaimedMessage(new Lease(id, 1), Instant.now(), 1,
				new StoredMessage(Instant.now(), Map.of(), "\"x\"".getBytes(), null), suspect);
		return new Delivery(message, partition, Instant.now(), System.nanoTime());
	}

}
