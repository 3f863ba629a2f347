package io.github.delayqueue.config;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.DeliveredMessage;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.FailureAction;
import io.github.delayqueue.listener.ListenerOptions;
import org.junit.jupiter.api.Test;

import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An endpoint's backoff and not-retryable types configure its {@link DefaultDeliveryErrorHandler}, derived from the
 * factory's; an error handler of another kind owns its policy, so setting them beside it is an error at registration.
 */
class EndpointErrorPolicyTests {

	private static final DeliveredMessage FIRST = new DeliveredMessage("m", "t", java.time.Instant.EPOCH,
			java.time.Instant.EPOCH, 1, java.util.Map.of());

	private final ListenerOptions defaults = ListenerOptions.builder()
		.errorHandler(new DefaultDeliveryErrorHandler(new FixedBackOff(70, 5)).withNotRetryable(
				UnsupportedOperationException.class))
		.build();

	@Test
	void withoutSettingsTheFactorysErrorHandlerIsUsedAsItIs() {
		SimpleDelayedListenerEndpoint<?> endpoint = endpoint();
		assertThat(endpoint.createRegistration(this.defaults).options().errorHandler())
			.isSameAs(this.defaults.errorHandler());
	}

	@Test
	void notRetryableTypesAreAddedToTheFactorysDefaultHandler() {
		SimpleDelayedListenerEndpoint<?> endpoint = endpoint();
		endpoint.setNotRetryable(List.of(IllegalArgumentException.class));
		DefaultDeliveryErrorHandler handler = (DefaultDeliveryErrorHandler) endpoint.createRegistration(this.defaults)
			.options()
			.errorHandler();
		assertThat(handler.getNotRetryable()).containsExactly(UnsupportedOperationException.class,
				IllegalArgumentException.class);
		assertThat(handler.handle(FIRST, new IllegalStateException()).delay()).as("the factory's backoff")
			.isEqualTo(Duration.ofMillis(70));
	}

	@Test
	void aBackOffReplacesTheFactorysAndKeepsItsTypes() {
		SimpleDelayedListenerEndpoint<?> endpoint = endpoint();
		endpoint.setBackOff(new FixedBackOff(30, 2));
		DefaultDeliveryErrorHandler handler = (DefaultDeliveryErrorHandler) endpoint.createRegistration(this.defaults)
			.options()
			.errorHandler();
		assertThat(handler.handle(FIRST, new IllegalStateException()).delay()).isEqualTo(Duration.ofMillis(30));
		assertThat(handler.getNotRetryable()).containsExactly(UnsupportedOperationException.class);
	}

	@Test
	void aPolicyBesideAnErrorHandlerOfAnotherKindIsRejected() {
		DeliveryErrorHandler own = (message, failure) -> FailureAction.acknowledge();
		SimpleDelayedListenerEndpoint<?> endpoint = endpoint();
		endpoint.setErrorHandler(own);
		endpoint.setNotRetryable(List.of(IllegalArgumentException.class));
		assertThatIllegalStateException().isThrownBy(() -> endpoint.createRegistration(this.defaults))
			.withMessageContaining("topic 't'")
			.withMessageContaining("owns its policy");
	}

	private static SimpleDelayedListenerEndpoint<?> endpoint() {
		return SimpleDelayedListenerEndpoint.of("t", String.class, (payload, message) -> {
		});
	}

}
