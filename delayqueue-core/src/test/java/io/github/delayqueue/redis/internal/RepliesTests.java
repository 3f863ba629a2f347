package io.github.delayqueue.redis.internal;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Scores as Redis writes them, read to the microsecond: the fast path for a plain due time gives what
 * {@link BigDecimal} gives for every form.
 */
class RepliesTests {

	@Test
	void aNumberIsWrittenInDecimalAsciiAsLongToStringWritesIt() {
		long[] samples = { 0, 1, -1, 9, 10, -10, 99, 100, 1_764_160_000_123L, -1_764_160_000_123L, Long.MAX_VALUE,
				Long.MIN_VALUE, Integer.MAX_VALUE + 1L };
		for (long sample : samples) {
			assertThat(new String(Replies.bytes(sample), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(sample));
		}
		SplittableRandom random = new SplittableRandom(7);
		for (int i = 0; i < 10_000; i++) {
			long sample = random.nextLong() >> random.nextInt(64);
			assertThat(new String(Replies.bytes(sample), StandardCharsets.US_ASCII)).isEqualTo(Long.toString(sample));
		}
	}

	@Test
	void aPlainDueTimeIsReadToTheMicrosecondRoundedHalfUp() {
		assertThat(micros("1764160000123")).isEqualTo(1_764_160_000_123_000L);
		assertThat(micros("1764160000123.4561")).isEqualTo(1_764_160_000_123_456L);
		assertThat(micros("1764160000123.4565")).isEqualTo(1_764_160_000_123_457L);
		assertThat(micros("1764160000123.001")).isEqualTo(1_764_160_000_123_001L);
		assertThat(micros("1764160000123.5")).isEqualTo(1_764_160_000_123_500L);
		assertThat(micros("0.9995")).as("the rounding carries into the millisecond").isEqualTo(1_000L);
		assertThat(micros("0")).isZero();
		assertThat(micros("007.5")).isEqualTo(7_500L);
		assertThat(micros("123456789012.34549")).as("only the fourth fractional digit rounds")
			.isEqualTo(123_456_789_012_345L);
		assertThat(micros("123456789012.34550")).isEqualTo(123_456_789_012_346L);
		assertThat(micros("999999999999999.9995")).as("the largest plain form").isEqualTo(1_000_000_000_000_000_000L);
	}

	@Test
	void otherFormsAreReadAsBigDecimalReadsThem() {
		assertThat(micros("-3")).isEqualTo(-3_000L);
		assertThat(micros("12.")).isEqualTo(12_000L);
		assertThat(micros("-1.2345")).as("half up, away from zero").isEqualTo(-1_235L);
		assertThat(micros("1e+12")).isEqualTo(1_000_000_000_000_000L);
		assertThat(micros("1.7641600001234561e+12")).isEqualTo(1_764_160_000_123_456L);
		assertThat(micros("1234567890123456")).as("16 integer digits").isEqualTo(1_234_567_890_123_456_000L);
	}

	@Test
	void whatIsNoNumberIsRefused() {
		assertThatExceptionOfType(NumberFormatException.class).isThrownBy(() -> micros("12.3x"));
		assertThatExceptionOfType(NumberFormatException.class).isThrownBy(() -> micros(""));
		assertThatExceptionOfType(NumberFormatException.class).isThrownBy(() -> micros("inf"));
		assertThatExceptionOfType(NumberFormatException.class).isThrownBy(() -> micros("nan"));
		assertThatExceptionOfType(NumberFormatException.class).isThrownBy(() -> micros("."));
	}

	@Test
	void dueTimesAsRedisFormatsThemReadAsBigDecimalReadsThem() {
		SplittableRandom random = new SplittableRandom(18);
		for (int i = 0; i < 100_000; i++) {
			double score = random.nextLong(1_000_000_000_000_000L, 10_000_000_000_000_000L) / 1000.0;
			// Redis before 7.2 writes a double score with 17 significant digits (7.2 and later the fewest that read
			// back to the same double, which the plain form covers too); a whole score has no fraction
			String text = (score == Math.rint(score)) ? String.format(Locale.ROOT, "%.0f", score)
					: new BigDecimal(score).round(new MathContext(17)).stripTrailingZeros().toPlainString();
			assertThat(micros(text)).as(text)
				.isEqualTo(new BigDecimal(text).movePointRight(3).setScale(0, RoundingMode.HALF_UP).longValueExact());
		}
	}

	private static long micros(String score) {
		return Replies.microsOf(score.getBytes(StandardCharsets.UTF_8));
	}

}
