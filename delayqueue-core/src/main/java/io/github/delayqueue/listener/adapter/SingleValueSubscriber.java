package io.github.delayqueue.listener.adapter;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;

import org.springframework.core.ReactiveAdapter;

/**
 * Awaits a single-value {@code Publisher} (a {@code Mono}, an RxJava {@code Single}/{@code Maybe}/{@code Completable}
 * as Spring's {@code ReactiveAdapterRegistry} adapts it) as a {@link CompletableFuture}: it completes with the value,
 * or with {@code null} when the publisher completes empty (a {@code Mono<Void>} that finished), or exceptionally with
 * the publisher's error. Cancelling the future cancels the subscription.
 */
final class SingleValueSubscriber extends CompletableFuture<@Nullable Object> implements Subscriber<Object> {

	private final AtomicReference<@Nullable Subscription> subscription = new AtomicReference<>();

	/**
	 * Subscribes to a single-value reactive result.
	 * @param adapter the adapter of its type
	 * @param result the result, such as a {@code Mono}
	 * @return a future of its value
	 */
	static SingleValueSubscriber subscribe(ReactiveAdapter adapter, Object result) {
		return subscribe(adapter.toPublisher(result));
	}

	/**
	 * Subscribes to a single-value publisher, such as the {@code Mono} of a Kotlin {@code suspend} function.
	 * @param publisher the publisher
	 * @return a future of its value
	 */
	static SingleValueSubscriber subscribe(Publisher<?> publisher) {
		SingleValueSubscriber subscriber = new SingleValueSubscriber();
		publisher.subscribe(subscriber);
		return subscriber;
	}

	private @Nullable Object value;

	@Override
	public void onSubscribe(Subscription subscription) {
		if (!this.subscription.compareAndSet(null, subscription) || isDone()) {
			subscription.cancel();
			return;
		}
		subscription.request(Long.MAX_VALUE);
	}

	@Override
	public void onNext(Object item) {
		// a single-value publisher: the first value is the result
		if (this.value == null) {
			this.value = item;
		}
	}

	@Override
	public void onError(Throwable failure) {
		completeExceptionally(failure);
	}

	@Override
	public void onComplete() {
		complete(this.value);
	}

	@Override
	public boolean cancel(boolean mayInterruptIfRunning) {
		boolean cancelled = super.cancel(mayInterruptIfRunning);
		Subscription current = this.subscription.getAndSet(CANCELLED);
		if (current != null && current != CANCELLED) {
			current.cancel();
		}
		return cancelled;
	}

	private static final Subscription CANCELLED = new Subscription() {

		@Override
		public void request(long n) {
		}

		@Override
		public void cancel() {
		}

	};

}
