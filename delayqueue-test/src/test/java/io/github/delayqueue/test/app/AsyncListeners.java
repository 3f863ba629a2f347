package io.github.delayqueue.test.app;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.annotation.DelayedListener;
import reactor.core.publisher.Mono;

/**
 * Listeners of the kit's tests whose work completes later: held until the test completes it, a {@code Mono} that
 * completes on a timer, work that fails, is cancelled, never completes, or fails before it exists.
 */
public class AsyncListeners {

	/** Work held until the test completes it; one handler thread, four messages in flight. */
	public static final String HELD = "async-held";

	/** A {@code Mono<Void>} completing on Reactor's timer. */
	public static final String MONO = "async-mono";

	/** Work that fails, giving up after two attempts. */
	public static final String FAILING = "async-failing";

	/** Work the listener cancels. */
	public static final String CANCELLED = "async-cancelled";

	/** Work that never completes: the handler timeout cancels it. */
	public static final String NEVER = "async-never";

	/** A listener that throws before its work exists. */
	public static final String THROWS = "async-throws";

	private final BlockingQueue<CompletableFuture<String>> held = new LinkedBlockingQueue<>();

	private final List<String> heldThreads = new CopyOnWriteArrayList<>();

	private final List<CompletableFuture<Void>> never = new CopyOnWriteArrayList<>();

	@DelayedListener(topic = HELD, concurrency = "1", asyncConcurrency = "4")
	CompletableFuture<String> hold(String payload) {
		CompletableFuture<String> work = new CompletableFuture<>();
		this.heldThreads.add(Thread.currentThread().getName());
		this.held.add(work);
		return work;
	}

	@DelayedListener(topic = MONO)
	Mono<Void> later(String payload, DeliveredMessage message) {
		return Mono.delay(Duration.ofMillis(20)).then();
	}

	@DelayedListener(topic = FAILING, maxAttempts = "2")
	CompletableFuture<Void> fail(String payload) {
		return CompletableFuture.supplyAsync(() -> {
			throw new IllegalStateException("fails on purpose: " + payload);
		});
	}

	@DelayedListener(topic = CANCELLED, maxAttempts = "1")
	CompletableFuture<Void> cancel(String payload) {
		CompletableFuture<Void> work = new CompletableFuture<>();
		CompletableFuture.runAsync(() -> work.cancel(false));
		return work;
	}

	@DelayedListener(topic = NEVER, maxAttempts = "1", handlerTimeout = "300ms")
	CompletableFuture<Void> never(String payload) {
		CompletableFuture<Void> work = new CompletableFuture<>();
		this.never.add(work);
		return work;
	}

	@DelayedListener(topic = THROWS, maxAttempts = "1")
	CompletableFuture<Void> throwEarly(String payload) {
		throw new IllegalArgumentException("no work for " + payload);
	}

	/**
	 * The work of the held topic's calls, in the order they started, removed as taken.
	 * @return the work
	 */
	public BlockingQueue<CompletableFuture<String>> held() {
		return this.held;
	}

	/**
	 * The threads the held topic's calls started on.
	 * @return the thread names
	 */
	public List<String> heldThreads() {
		return this.heldThreads;
	}

	/**
	 * The work of the never-completing topic's calls.
	 * @return the work
	 */
	public List<CompletableFuture<Void>> never() {
		return this.never;
	}

}
