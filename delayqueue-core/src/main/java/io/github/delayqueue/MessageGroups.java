package io.github.delayqueue;

import org.springframework.util.Assert;

/**
 * Group keys: the rule for the key that puts a message in a group of its topic, whose groups are served in turn and
 * may each have a concurrency cap and be paused (see {@link ScheduleRequest.Builder#group(String)} and the
 * "Fair delivery" reference page).
 * <p>
 * A group key is 1 to {@value #MAX_LENGTH} printable ASCII characters ({@code '!'} to {@code '~'}): no space, no
 * control character, nothing outside ASCII. It is stored in every message of the group (one byte per character and
 * one more), so a short key (a tenant's or customer's id) costs little.
 *
 * @since 1.0.0
 */
public final class MessageGroups {

	/** The longest group key, in characters. */
	public static final int MAX_LENGTH = 64;

	/**
	 * The largest weight of a group among the groups served in turn (see
	 * {@link DelayedQueueAdmin#setGroupWeight(String, String, Integer)}); the default is 1.
	 * @since 1.0.0
	 */
	public static final int MAX_WEIGHT = 100;

	private MessageGroups() {
	}

	/**
	 * Checks a group key: 1 to {@value #MAX_LENGTH} printable ASCII characters, no space.
	 * @param group the group key
	 * @throws IllegalArgumentException if it is {@code null}, empty, too long, or has another character
	 */
	public static void validate(String group) {
		Assert.isTrue(group != null, "Group key must not be null");
		Assert.isTrue(!group.isEmpty(), "Group key must not be empty");
		Assert.isTrue(group.length() <= MAX_LENGTH, () -> "Group key is " + group.length()
				+ " characters long, but may have at most " + MAX_LENGTH);
		for (int i = 0; i < group.length(); i++) {
			char c = group.charAt(i);
			int index = i;
			Assert.isTrue(c >= '!' && c <= '~', () -> "Group key '" + printable(group) + "' has a character (at "
					+ index + ") that is not printable ASCII: a group key is 1 to " + MAX_LENGTH
					+ " characters from '!' to '~', without spaces");
		}
	}

	/**
	 * Checks a group's weight: 1 to {@value #MAX_WEIGHT}.
	 * @param weight the weight
	 * @throws IllegalArgumentException if it is out of range
	 * @since 1.0.0
	 */
	public static void validateWeight(int weight) {
		Assert.isTrue(weight >= 1 && weight <= MAX_WEIGHT, () -> "Group weight must be between 1 and " + MAX_WEIGHT
				+ ", but was " + weight);
	}

	private static String printable(String group) {
		StringBuilder out = new StringBuilder(group.length());
		group.codePoints().forEach((c) -> {
			if (c >= 0x20 && c <= 0x7E) {
				out.append((char) c);
			}
			else {
				out.append(String.format("\\u%04x", c));
			}
		});
		return out.toString();
	}

}
