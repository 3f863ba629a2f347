package io.github.delayqueue.payload;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * delayqueue's own JSON, through whichever Jackson the run has (Jackson 3 here, Jackson 2 on the Boot 3.5 line run):
 * plain values, numbers exactly as written, and one value per text.
 */
class JsonValuesTests {

	@Test
	void valuesAreReadAsPlainJavaValuesWithNumbersAsWritten() {
		Object value = JsonValues.read(bytes("{\"id\":\"o-1\",\"total\":42.50,\"items\":[1,12345678901,true,null]}"));
		assertThat(value).isEqualTo(Map.of("id", "o-1", "total", new BigDecimal("42.50"), "items",
				java.util.Arrays.asList(1, 12345678901L, true, null)));
		assertThat(new String(JsonValues.write(value), StandardCharsets.UTF_8))
			.isEqualTo("{\"id\":\"o-1\",\"total\":42.50,\"items\":[1,12345678901,true,null]}");
		assertThat(JsonValues.read(bytes("\"text\""))).isEqualTo("text");
		assertThat(JsonValues.read(bytes("null"))).isNull();
		assertThat(JsonValues.readObject(bytes("{\"a\":[]}"))).isEqualTo(Map.of("a", List.of()));
	}

	@Test
	void aTextIsOneJsonValueOrSaysWhyNot() {
		assertThat(JsonValues.problem("{\"a\":[1,2]}")).isNull();
		assertThat(JsonValues.isValue("\"text\"")).isTrue();
		assertThat(JsonValues.problem("{\"a\":")).isNotNull();
		assertThat(JsonValues.problem("1 2")).as("text after the value").isNotNull();
		assertThat(JsonValues.problem("")).isNotNull();
		assertThatIllegalArgumentException().isThrownBy(() -> JsonValues.read(bytes("{\"a\":")));
		assertThatIllegalArgumentException().isThrownBy(() -> JsonValues.readObject(bytes("[1]")))
			.withMessageContaining("not a JSON object");
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

}
