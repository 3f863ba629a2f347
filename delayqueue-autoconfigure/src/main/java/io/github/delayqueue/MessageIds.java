package io.github.delayqueue;

import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Message ids: the rule for callers' ids and the generator of random ones.
 */
public final class MessageIds {

	/** The longest id. */
	public static final int MAX_LENGTH = 200;

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private MessageIds() {
	}

	/**
	 * A new random id: 128 random bits as 22 characters of unpadded base64url.
	 * @return the id
	 */
	public static String generate() {
		ThreadLocalRandom random = ThreadLocalRandom.current();
		long high = random.nextLong();
		long low = random.nextLong();
		byte[] bytes = new byte[16];
		for (int i = 0; i < 8; i++) {
			bytes[i] = (byte) (high >>> (56 - 8 * i));
			bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
		}
		return ENCODER.encodeToString(bytes);
	}

	/**
	 * Checks a caller's id: 1 to {@value #MAX_LENGTH} characters, none of them white space or a control
	 * character.
	 * @param id the id
	 * @return the id
	 * @throws IllegalArgumentException if it breaks the rule
	 */
	public static String validate(@Nullable String id) {
		Assert.isTrue(id != null && !id.isEmpty(), "Message id must not be null or empty");
		Assert.isTrue(id.length() <= MAX_LENGTH,
				() -> "Message id must be at most " + MAX_LENGTH + " characters, but has " + id.length());
		for (int i = 0; i < id.length(); i++) {
			char c = id.charAt(i);
			if (Character.isWhitespace(c) || Character.isISOControl(c)) {
				throw new IllegalArgumentException(
						"Message id '" + id + "' must not contain white space or control characters");
			}
		}
		return id;
	}

}
