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

	private final DeliveryErrorHandler handler = DefaultDeliveryErrorHandler.INSTANCE;

	private final ListenerOptions options = ListenerOptions.builder()
		.maxAttempts(3)
		.backOff(ListenerOptions.exponentialBackOff(Duration.ofSeconds(1), 2.0, Duration.ofMinutes(1)))
		.notRetryable(IllegalArgumentException.class)
		.build();

	@Test
	void retriesWithTheBackOffOfTheAttemptUntilTheLastAttempt() {
		FailureAction first = this.handler.handle(message(1), new IllegalStateException("boom"), this.options);
		FailureAction second = this.handler.handle(message(2), new IllegalStateException("boom"), this.options);
		assertThat(first.kind()).isEqualTo(FailureAction.Kind.RETRY);
		assertThat(second.kind()).isEqualTo(FailureAction.Kind.RETRY);
		assertThat(second.delay()).isGreaterThan(first.delay());
		assertThat(this.handler.handle(message(3), new IllegalStateException("boom"), this.options).kind())
			.isEqualTo(FailureAction.Kind.DEAD_LETTER);
	}

	@Test
	void failuresThatCannotSucceedGoToTheDeadLettersAtOnceWhereverTheyAreInTheCauseChain() {
		for (Throwable failure : new Throwable[] { new NonRetryableException("no"),
				new PayloadConversionException("unreadable", new RuntimeException()),
				new UnreadableMessageException("corrupt envelope"), new IllegalArgumentException("bad"),
				new UncheckedIOException(new java.io.IOException(new NonRetryableException("deep"))) }) {
			assertThat(this.handler.handle(message(1), failure, this.options).kind()).as(failure.toString())
				.isEqualTo(FailureAction.Kind.DEAD_LETTER);
		}
	}

	@Test
	void aBackOffThatStopsSendsTheMessageToTheDeadLetters() {
		ListenerOptions once = this.options.toBuilder().maxAttempts(10).backOff(new FixedBackOff(10, 1)).build();
		assertThat(this.handler.handle(message(1), new IllegalStateException(), once).delay())
			.isEqualTo(Duration.ofMillis(10));
		assertThat(this.handler.handle(message(2), new IllegalStateException(), once).kind())
			.isEqualTo(FailureAction.Kind.DEAD_LETTER);
	}

	private static DeliveredMessage message(int attempt) {
		return new DeliveredMessage("m-1", "t", Instant.EPOCH, Instant.EPOCH, attempt, Map.of());
	}

}
