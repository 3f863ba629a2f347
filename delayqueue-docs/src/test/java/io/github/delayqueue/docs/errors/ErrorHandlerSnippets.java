package io.github.delayqueue.docs.errors;

import io.github.delayqueue.docs.model.Notifications;
import io.github.delayqueue.docs.model.PaymentDeclinedException;
import io.github.delayqueue.listener.DefaultDeliveryErrorHandler;
import io.github.delayqueue.listener.DeliveryErrorHandler;
import io.github.delayqueue.listener.FailureAction;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.backoff.FixedBackOff;

/** The errors page's snippets. */
@Configuration(proxyBeanMethods = false)
class ErrorHandlerSnippets {

	// tag::error-handler[]
	@Bean
	DeliveryErrorHandler paymentErrors(Notifications notifications) {
		DefaultDeliveryErrorHandler retries = new DefaultDeliveryErrorHandler(new FixedBackOff(500, 5))
			.withNotRetryable(IllegalArgumentException.class);
		return (message, failure) -> {
			if (failure instanceof PaymentDeclinedException) {
				notifications.paymentDeclined(message.id());
				return FailureAction.acknowledge();
			}
			return retries.handle(message, failure);
		};
	}
	// end::error-handler[]

}
