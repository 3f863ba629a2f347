package io.github.delayqueue;

import org.jspecify.annotations.Nullable;

/**
 * The rule for topic names: 1 to {@value #MAX_LENGTH} characters of {@code A-Z a-z 0-9 . _ : -}. Braces are
 * excluded because a topic becomes a Redis Cluster hash tag; spaces because it becomes part of key names.
 *
 * @since 0.1.0
 */
public final class Topics {

	/** The longest topic name. */
	public static final int MAX_LENGTH = 200;

	/**
	 * The longest subscription name.
	 * @since 1.0.0
	 */
	public static final int MAX_SUBSCRIPTION_LENGTH = 100;

	/**
	 * What separates a topic from one of its subscriptions in a subscription's full name,
	 * {@code <topic>@<subscription>}; never part of a topic's or a subscription's own name.
	 * @since 1.0.0
	 */
	public static final char SUBSCRIPTION_SEPARATOR = '@';

	private Topics() {
	}

	/**
	 * Whether a topic name is valid.
	 * @param topic the name
	 * @return {@code true} if it may be used
	 */
	public static boolean isValid(@Nullable String topic) {
		return topic != null && !topic.isEmpty() && topic.length() <= MAX_LENGTH && hasValidCharacters(topic);
	}

	/**
	 * Checks a topic name.
	 * @param topic the name
	 * @return the name
	 * @throws InvalidTopicException if it is not valid, saying why
	 */
	public static String validate(@Nullable String topic) {
		if (topic == null) {
			throw new InvalidTopicException("Topic must not be null");
		}
		if (topic.isBlank()) {
			throw new InvalidTopicException("Topic must not be blank");
		}
		if (topic.length() > MAX_LENGTH) {
			throw new InvalidTopicException(
					"Topic must be at most " + MAX_LENGTH + " characters, but has " + topic.length());
		}
		if (!hasValidCharacters(topic)) {
			throw new InvalidTopicException("Topic '" + topic
					+ "' may only contain letters, digits and the characters . _ : - (no spaces or braces)");
		}
		return topic;
	}

	/**
	 * Checks a subscription's own name: 1 to {@value #MAX_SUBSCRIPTION_LENGTH} characters of
	 * {@code A-Z a-z 0-9 . _ -}.
	 * @param subscription the name
	 * @return the name
	 * @throws InvalidTopicException if it is not valid, saying why
	 * @since 1.0.0
	 */
	public static String validateSubscription(@Nullable String subscription) {
		if (subscription == null || subscription.isBlank()) {
			throw new InvalidTopicException("Subscription must not be null or blank");
		}
		if (subscription.length() > MAX_SUBSCRIPTION_LENGTH) {
			throw new InvalidTopicException("Subscription must be at most " + MAX_SUBSCRIPTION_LENGTH
					+ " characters, but has " + subscription.length());
		}
		if (!hasValidCharacters(subscription) || subscription.indexOf(':') >= 0) {
			throw new InvalidTopicException("Subscription '" + subscription
					+ "' may only contain letters, digits and the characters . _ - (no spaces, colons or braces)");
		}
		return subscription;
	}

	/**
	 * A subscription's full name, {@code <topic>@<subscription>}: what the listener container, the metrics (the
	 * {@code topic} tag) and the admin operations of a subscription take and show where they take a topic.
	 * @param topic the topic
	 * @param subscription the subscription's own name
	 * @return the full name
	 * @throws InvalidTopicException if either name is not valid
	 * @since 1.0.0
	 */
	public static String subscriptionName(String topic, String subscription) {
		return validate(topic) + SUBSCRIPTION_SEPARATOR + validateSubscription(subscription);
	}

	/**
	 * Whether a name is a valid topic's or a valid subscription's full name ({@code <topic>@<subscription>}).
	 * @param name the name
	 * @return {@code true} if it may be used where a topic or a subscription is taken
	 * @since 1.0.0
	 */
	public static boolean isValidTopicOrSubscription(@Nullable String name) {
		int at = (name != null) ? name.indexOf(SUBSCRIPTION_SEPARATOR) : -1;
		if (at < 0) {
			return isValid(name);
		}
		String subscription = name.substring(at + 1);
		return isValid(name.substring(0, at)) && !subscription.isEmpty()
				&& subscription.length() <= MAX_SUBSCRIPTION_LENGTH && hasValidCharacters(subscription)
				&& subscription.indexOf(':') < 0;
	}

	/**
	 * Checks a topic's name or a subscription's full name ({@code <topic>@<subscription>}).
	 * @param name the name
	 * @return the name
	 * @throws InvalidTopicException if it is neither, saying why
	 * @since 1.0.0
	 */
	public static String validateTopicOrSubscription(@Nullable String name) {
		int at = (name != null) ? name.indexOf(SUBSCRIPTION_SEPARATOR) : -1;
		if (at < 0) {
			return validate(name);
		}
		validate(name.substring(0, at));
		validateSubscription(name.substring(at + 1));
		return name;
	}

	/** {@code [A-Za-z0-9._:-]*}, checked without a regular expression: it runs on every schedule. */
	private static boolean hasValidCharacters(String topic) {
		for (int i = 0; i < topic.length(); i++) {
			char c = topic.charAt(i);
			boolean valid = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
					|| c == '_' || c == ':' || c == '-';
			if (!valid) {
				return false;
			}
		}
		return true;
	}

}
