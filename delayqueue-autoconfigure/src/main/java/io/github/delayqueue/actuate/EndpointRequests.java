package io.github.delayqueue.actuate;

import java.util.function.Supplier;

import io.github.delayqueue.MessageIds;
import io.github.delayqueue.Topics;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

/**
 * Checks the {@code delayqueue} endpoint's requests: a topic or message id that is not valid, or an argument the
 * queue rejects, is a bad request (400) that says why, never a server error.
 */
final class EndpointRequests {

	private EndpointRequests() {
	}

	/**
	 * Runs an action, turning an {@link IllegalArgumentException} into a bad request.
	 * @param reason the bad request's reason
	 * @param action the action
	 * @return what the action returns
	 */
	static <T> T badRequest(String reason, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), reason);
		}
	}

	static void validTopic(String topic) {
		if (!Topics.isValidTopicOrSubscription(topic)) {
			throw new InvalidEndpointRequestException("Invalid topic '" + topic + "'", "Invalid topic");
		}
	}

	static void validId(String id) {
		try {
			MessageIds.validate(id);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidEndpointRequestException(ex.getMessage(), "Invalid message id");
		}
	}

}
