package io.github.delayqueue.listener;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.payload.PayloadConversionException;
import org.junit.jupiter.api.Test;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

class DefaultDeliveryErrorHandlerTests {

	private final DeliveryErrorHandler handler = new DefaultDeliveryErrorHandler(
			DefaultDeliveryErrorHandler.exponentialBackOff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1)))
		.withNotRetryable(IllegalArgumentException.class);

	@Test
	void retriesWithTheBackOffOfTheAttempt() {
		FailureAction first = this.handler.handle(message(1), new IllegalStateException("boom"));
		FailureAction second = this.handler.handle(message(2), new IllegalStateException("boom"));
		assertThat(first.kind()).isEqualTo(FailureAction.Kind.RETRY);
		assertThat(second.kind()).isEqualTo(FailureAction.Kind.RETRY);
		assertThat(second.delay()).isGreaterThan(first.delay());
	}

	@Test
	void failuresThatCannotSucceedGoToTheDeadLettersAtOnceWhereverTheyAreInTheCauseChain() {
		for (Throwable failure : new Throwable[] { new NonRetryableException("no"),
				new PayloadConversionException("unreadable", new RuntimeException()),
				new UnreadableMessageException("corrupt envelope"), new IllegalArgumentException("bad"),
				new UncheckedIOException(new java.io.IOException(new NonRetryableException("deep"))) }) {
			assertThat(this.handler.handle(message(1), failure).kind()).as(failure.toString())
				.isEqualTo(FailureAction.Kind.DEAD_LETTER);
		}
		assertThat(DefaultDeliveryErrorHandler.INSTANCE.handle(message(1), new IllegalArgumentException("bad")).kind())
			.as("not one of the default instance's types").isEqualTo(FailureAction.Kind.RETRY);
	}

	@Test
	void aBackOffThatStopsSendsTheMessageToTheDeadLetters() {
		DeliveryErrorHandler once = new DefaultDeliveryErrorHandler(new FixedBackOff(10, 1));
		assertThat(once.handle(message(1), new IllegalStateException()).delay()).isEqualTo(Duration.ofMillis(10));
		assertThat(once.handle(message(2), new IllegalStateException()).kind())
			.isEqualTo(FailureAction.Kind.DEAD_LETTER);
	}

	@Test
	void notRetryableTypesAddUpAndTheHandlerStaysUnchanged() {
		DefaultDeliveryErrorHandler base = new DefaultDeliveryErrorHandler(new FixedBackOff(10, 3));
		DefaultDeliveryErrorHandler more = base.withNotRetryable(IllegalStateException.class)
			.withNotRetryable(UnsupportedOperationException.class);
		assertThat(base.getNotRetryable()).isEmpty();
		assertThat(more.getNotRetryable()).containsExactly(IllegalStateException.class,
				UnsupportedOperationException.class);
		assertThat(more.getBackOff()).isSameAs(base.getBackOff());
	}

	@Test
	void theOptionsErrorHandlerIsTheOneSetElseTheDefault() {
		assertThat(ListenerOptions.defaults().errorHandler()).isSameAs(DefaultDeliveryErrorHandler.INSTANCE);
		DeliveryErrorHandler own = (message, failure) -> FailureAction.acknowledge();
		ListenerOptions options = ListenerOptions.builder().errorHandler(own).build();
		assertThat(options.errorHandler()).isSameAs(own);
		assertThat(options.toBuilder().concurrency(2).build().errorHandler()).as("kept by toBuilder").isSameAs(own);
	}

	private static DeliveredMessage message(int attempt) {
		return new DeliveredMessage("m-1", "t", Instant.EPOCH, Instant.EPOCH, attempt, Map.of());
	}

}
