package io.github.delayqueue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;

class MessageIdsTests {

	private static final String ALPHABET = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz";

	@Test
	void alphabetIsInAsciiOrder() {
		assertThat(ALPHABET).hasSize(64);
		char[] sorted = ALPHABET.toCharArray();
		Arrays.sort(sorted);
		assertThat(new String(sorted)).isEqualTo(ALPHABET);
		assertThat(MessageIds.ALPHABET).isEqualTo(ALPHABET);
	}

	@Test
	void generatedIdIs22CharactersOfTheAlphabetAndValid() {
		for (int i = 0; i < 10_000; i++) {
			String id = MessageIds.generate();
			assertThat(id).hasSize(22).matches("[-0-9A-Z_a-z]{22}");
			// The last character holds 2 bits and 4 zero bits of padding
			assertThat(ALPHABET.indexOf(id.charAt(21)) & 0xF).as(id).isZero();
			assertThat(MessageIds.validate(id)).isSameAs(id);
		}
	}

	@Test
	void timestampIsTheCurrentTime() {
		long before = System.currentTimeMillis();
		String id = MessageIds.generate();
		long after = System.currentTimeMillis();
		assertThat(timestamp(id)).isBetween(before, after);
		assertThat(timestamp(id)).isCloseTo(System.currentTimeMillis(), within(5000L));
		assertThat(bits(id).shiftRight(80).longValueExact()).isEqualTo(timestamp(id));
	}

	@Test
	void idsGeneratedTwoMillisecondsApartSortInTimeOrder() {
		for (int round = 0; round < 20; round++) {
			String first = MessageIds.generate();
			long generated = System.currentTimeMillis();
			awaitClockAt(generated + 2);
			String second = MessageIds.generate();
			assertThat(timestamp(second) - timestamp(first)).isGreaterThanOrEqualTo(2);
			assertThat(first).isLessThan(second);
		}
	}

	@Test
	void stringOrderIsTheOrderOfTheBits() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 5_000; i++) {
			ids.add(MessageIds.generate());
		}
		for (int i = 1; i < ids.size(); i++) {
			String a = ids.get(i - 1);
			String b = ids.get(i);
			assertThat(Integer.signum(a.compareTo(b))).as("%s vs %s", a, b)
				.isEqualTo(Integer.signum(bits(a).compareTo(bits(b))));
		}
	}

	@Test
	void randomPartVariesWithinAMillisecond() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			ids.add(MessageIds.generate());
		}
		assertThat(ids).doesNotHaveDuplicates();
		// 80 random bits: between two ids they should differ in about half (40) of them
		BigInteger lowMask = BigInteger.ONE.shiftLeft(80).subtract(BigInteger.ONE);
		int differing = 0;
		for (int i = 1; i < ids.size(); i++) {
			differing += bits(ids.get(i - 1)).and(lowMask).xor(bits(ids.get(i)).and(lowMask)).bitCount();
		}
		double average = differing / (double) (ids.size() - 1);
		assertThat(average).isBetween(35.0, 45.0);
	}

	@Test
	void aMillionIdsFromFourThreadsAreDistinct() throws Exception {
		int threads = 4;
		int perThread = 250_000;
		ExecutorService executor = Executors.newFixedThreadPool(threads);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<String[]>> futures = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				futures.add(executor.submit(() -> {
					String[] ids = new String[perThread];
					start.await();
					for (int i = 0; i < perThread; i++) {
						ids[i] = MessageIds.generate();
					}
					return ids;
				}));
			}
			start.countDown();
			String[] all = new String[threads * perThread];
			for (int t = 0; t < threads; t++) {
				System.arraycopy(futures.get(t).get(60, TimeUnit.SECONDS), 0, all, t * perThread, perThread);
			}
			Arrays.sort(all);
			for (int i = 1; i < all.length; i++) {
				if (all[i].equals(all[i - 1])) {
					fail("Duplicate id " + all[i]);
				}
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	@Test
	void validateAcceptsAnIdOfPrintableCharacters() {
		assertThat(MessageIds.validate("order-42")).isEqualTo("order-42");
		assertThat(MessageIds.validate("x")).isEqualTo("x");
		assertThat(MessageIds.validate("tenant:acme/order#42;v=1é名\u00A0")).isNotNull();
		String longest = "a".repeat(MessageIds.MAX_LENGTH);
		assertThat(MessageIds.validate(longest)).isSameAs(longest);
	}

	@Test
	void validateRejectsNull() {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.validate(null))
			.withMessage("Message id must not be null or empty");
	}

	@Test
	void validateRejectsEmpty() {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.validate(""))
			.withMessage("Message id must not be null or empty");
	}

	@Test
	void validateRejectsTooLong() {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.validate("a".repeat(201)))
			.withMessage("Message id must be at most 200 characters, but has 201");
	}

	@ParameterizedTest
	@ValueSource(strings = { " ", "a b", "a\tb", "a\nb", "a\rb", "a\u2003b", "a\u2028b" })
	void validateRejectsWhiteSpace(String id) {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.validate(id))
			.withMessageStartingWith("Message id must not contain white space or control characters, but has U+");
	}

	@ParameterizedTest
	@ValueSource(strings = { "a\u0000b", "\u0001", "a\u001Fb", "a\u007Fb", "a\u0085b", "a\u009Fb" })
	void validateRejectsControlCharacters(String id) {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.validate(id))
			.withMessageStartingWith("Message id must not contain white space or control characters, but has U+");
	}

	@Test
	void validateNamesTheOffendingCharacter() {
		assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.validate("ord\ner"))
			.withMessage("Message id must not contain white space or control characters, but has U+000A at index 3");
	}

	/**
	 * The 48-bit timestamp in the first 8 characters.
	 */
	private static long timestamp(String id) {
		long value = 0;
		for (int i = 0; i < 8; i++) {
			value = (value << 6) | ALPHABET.indexOf(id.charAt(i));
		}
		return value;
	}

	/**
	 * The 128 bits of an id, checking the 4 bits of padding are zero.
	 */
	private static BigInteger bits(String id) {
		BigInteger value = BigInteger.ZERO;
		for (int i = 0; i < id.length(); i++) {
			int digit = ALPHABET.indexOf(id.charAt(i));
			assertThat(digit).as(id).isNotNegative();
			value = value.shiftLeft(6).or(BigInteger.valueOf(digit));
		}
		assertThat(value.and(BigInteger.valueOf(0xF))).as(id).isEqualTo(BigInteger.ZERO);
		return value.shiftRight(4);
	}

	private static void awaitClockAt(long millis) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
		while (System.currentTimeMillis() < millis) {
			if (System.nanoTime() > deadline) {
				fail("The clock did not reach " + millis + " within 5 seconds");
			}
			Thread.onSpinWait();
		}
	}

}
