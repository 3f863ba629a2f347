package io.github.delayqueue;

import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * Message ids: the rule for callers' ids and the generator of new ones.
 * <p>
 * A generated id is 128 bits: the time of generation as 48 bits of Unix epoch milliseconds, big-endian, then
 * 80 random bits. It is written as 22 characters of the 64-character alphabet
 * {@code -0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz}, six bits per character, the first
 * character carrying the highest bits and the last character the lowest 2 bits followed by 4 zero bits. The
 * alphabet is in ASCII order, so ids compare (as strings, or as bytes in Redis) in the order of their bits: the
 * first 8 characters are exactly the timestamp, and ids sort by creation time to the millisecond, as far as the
 * clocks of the processes that made them agree (within one process, as far as its wall clock does not step
 * back). Ids made in the same millisecond are in random order. It is not a UUID: it has no version or variant
 * bits and is not written in UUID's hexadecimal form; it uses the characters of base64url, but not its order.
 * <p>
 * The random bits come from a per-thread {@code L128X256MixRandom} generator (384 bits of state) seeded from
 * {@link SecureRandom}, so generating is fast and threads do not contend; two ids of one millisecond collide
 * with a chance of 2<sup>-80</sup>. Should the {@code jdk.random} module be missing from the runtime, a
 * per-thread {@code DRBG} {@link SecureRandom} is used instead, which is slower. Every generated id passes
 * {@link #validate(String)}.
 *
 * @since 0.1.0
 */
public final class MessageIds {

	/** The longest id. */
	public static final int MAX_LENGTH = 200;

	/** The length of a generated id. */
	static final int GENERATED_LENGTH = 22;

	/** The characters of a generated id, in ASCII order: the character for the value {@code v} is at {@code v}. */
	static final String ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

	private static final byte[] DIGITS = ALPHABET.getBytes(StandardCharsets.US_ASCII);

	private static final long TIMESTAMP_MASK = (1L << 48) - 1;

	private static final String ALGORITHM = "L128X256MixRandom";

	/** Seed bytes for a new generator: L128X256MixRandom takes 6 longs (128-bit LCG addend and state, 256-bit XBG). */
	private static final int SEED_LENGTH = 48;

	private static final SecureRandom SEEDS = new SecureRandom();

	private static final @Nullable RandomGeneratorFactory<RandomGenerator> FACTORY = factory();

	private static final ThreadLocal<RandomGenerator> RANDOM = ThreadLocal.withInitial(MessageIds::newGenerator);

	private MessageIds() {
	}

	/**
	 * A new id: 48 bits of the current epoch milliseconds then 80 random bits, as 22 characters that sort in
	 * time order (see the class description).
	 * @return the id
	 */
	public static String generate() {
		RandomGenerator random = RANDOM.get();
		long high = ((System.currentTimeMillis() & TIMESTAMP_MASK) << 16) | (random.nextInt() & 0xFFFF);
		long low = random.nextLong();
		byte[] chars = new byte[GENERATED_LENGTH];
		for (int i = 0; i < 10; i++) {
			chars[i] = DIGITS[(int) (high >>> (58 - 6 * i)) & 0x3F];
		}
		chars[10] = DIGITS[(int) (((high & 0xF) << 2) | (low >>> 62))];
		for (int i = 0; i < 10; i++) {
			chars[11 + i] = DIGITS[(int) (low >>> (56 - 6 * i)) & 0x3F];
		}
		chars[21] = DIGITS[(int) (low & 0x3) << 4];
		return new String(chars, StandardCharsets.ISO_8859_1);
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
				throw new IllegalArgumentException(String.format(
						"Message id must not contain white space or control characters, but has U+%04X at index %d",
						(int) c, i));
			}
		}
		return id;
	}

	private static @Nullable RandomGeneratorFactory<RandomGenerator> factory() {
		try {
			return RandomGeneratorFactory.of(ALGORITHM);
		}
		catch (IllegalArgumentException ex) {
			// No jdk.random module in this runtime
			return null;
		}
	}

	private static RandomGenerator newGenerator() {
		RandomGeneratorFactory<RandomGenerator> factory = FACTORY;
		if (factory != null) {
			byte[] seed = new byte[SEED_LENGTH];
			SEEDS.nextBytes(seed);
			return factory.create(seed);
		}
		try {
			return SecureRandom.getInstance("DRBG");
		}
		catch (NoSuchAlgorithmException ex) {
			return new SecureRandom();
		}
	}

}
