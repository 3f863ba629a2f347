package io.github.delayqueue;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The rule for topic names: 1 to 200 characters of {@code A-Z a-z 0-9 . _ : -}, each refusal saying why.
 */
class TopicsTests {

	@Test
	void namesOfTheAllowedCharactersAreValid() {
		for (String topic : new String[] { "orders", "order-timeout", "a.b_c:d-E9", "x", "9".repeat(200) }) {
			assertThat(Topics.isValid(topic)).as(topic).isTrue();
			assertThat(Topics.validate(topic)).isEqualTo(topic);
		}
	}

	@Test
	void otherCharactersAreRefusedNamingTheRule() {
		for (String topic : new String[] { "has space", "{tag}", "ordérs", "a/b", "a#1", "tab\t", "emoji😀" }) {
			assertThat(Topics.isValid(topic)).as(topic).isFalse();
			assertThatExceptionOfType(InvalidTopicException.class).isThrownBy(() -> Topics.validate(topic))
				.withMessageContaining("may only contain letters, digits and the characters . _ : -");
		}
	}

	@Test
	void emptyBlankNullAndOverlongNamesAreRefused() {
		assertThat(Topics.isValid(null)).isFalse();
		assertThat(Topics.isValid("")).isFalse();
		assertThat(Topics.isValid("9".repeat(201))).isFalse();
		assertThatExceptionOfType(InvalidTopicException.class).isThrownBy(() -> Topics.validate(null))
			.withMessage("Topic must not be null");
		assertThatExceptionOfType(InvalidTopicException.class).isThrownBy(() -> Topics.validate("  "))
			.withMessage("Topic must not be blank");
		assertThatExceptionOfType(InvalidTopicException.class).isThrownBy(() -> Topics.validate("9".repeat(201)))
			.withMessage("Topic must be at most 200 characters, but has 201");
	}

}
