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
