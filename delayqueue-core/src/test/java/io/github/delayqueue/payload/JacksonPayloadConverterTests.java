package io.github.delayqueue.payload;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import org.junit.jupiter.api.Test;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.module.SimpleModule;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The JSON converter: what it writes reads back as the same value; a plain string (printable ASCII, no quote or
 * backslash) skips the parser and generator, but only while the mapper's own string handling is Jackson's.
 */
class JacksonPayloadConverterTests {

	private final JacksonPayloadConverter converter = new JacksonPayloadConverter();

	private final JsonMapper mapper = JsonMapper.builder().build();

	@Test
	void plainStringIsTheSameLiteralTheMapperWrites() {
		for (String value : List.of("order-42", "", " spaced out ", "a:b|c#1@x.y_z", "{not json}")) {
			byte[] written = this.converter.write(value);
			assertThat(written).isEqualTo(this.mapper.writeValueAsBytes(value));
			assertThat(this.converter.read(written, String.class)).isEqualTo(value);
		}
	}

	@Test
	void stringsThatNeedEscapingRoundTripThroughTheMapper() {
		for (String value : List.of("say \"hi\"", "back\\slash", "tab\there", "grüße", "a/b", "\u0001", "😀")) {
			byte[] written = this.converter.write(value);
			assertThat(this.mapper.readValue(written, String.class)).isEqualTo(value);
			assertThat(this.converter.read(written, String.class)).isEqualTo(value);
		}
	}

	@Test
	void literalsThatAreNotPlainAreReadByTheMapper() {
		assertThat(this.converter.read(bytes(" \"padded\" "), String.class)).isEqualTo("padded");
		assertThat(this.converter.read(bytes("\"\\u0041\""), String.class)).isEqualTo("A");
		assertThat(this.converter.read(bytes("\"gr\u00fc\u00dfe\""), String.class)).isEqualTo("grüße");
	}

	@Test
	void brokenLiteralsStillFail() {
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.converter.read(bytes("\"unterminated"), String.class));
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.converter.read(bytes("\""), String.class));
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.converter.read(bytes("\"a\"\"b\""), String.class));
	}

	@Test
	void numbersAndObjectsAreNotTakenForStrings() {
		assertThat(this.converter.read(bytes("42"), Long.class)).isEqualTo(42L);
		assertThat(this.converter.read(bytes("\"42\""), String.class)).isEqualTo("42");
		assertThat(this.converter.read(this.converter.write(new Order("o-1", 3)), Order.class))
			.isEqualTo(new Order("o-1", 3));
	}

	@Test
	void aMapperWithItsOwnStringDeserializerIsAlwaysAsked() {
		SimpleModule shouting = new SimpleModule().addDeserializer(String.class, new ValueDeserializer<>() {
			@Override
			public String deserialize(JsonParser parser, DeserializationContext context) {
				return parser.getString().toUpperCase(Locale.ROOT);
			}
		});
		JacksonPayloadConverter custom = new JacksonPayloadConverter(JsonMapper.builder().addModule(shouting).build());
		assertThat(custom.read(bytes("\"order-42\""), String.class)).isEqualTo("ORDER-42");
	}

	@Test
	void aMapperWithItsOwnStringSerializerIsAlwaysAsked() {
		SimpleModule reversing = new SimpleModule().addSerializer(String.class, new ValueSerializer<>() {
			@Override
			public void serialize(String value, JsonGenerator generator, SerializationContext context) {
				generator.writeString(new StringBuilder(value).reverse().toString());
			}
		});
		JacksonPayloadConverter custom = new JacksonPayloadConverter(JsonMapper.builder().addModule(reversing).build());
		assertThat(new String(custom.write("abc"), StandardCharsets.UTF_8)).isEqualTo("\"cba\"");
	}

	@Test
	void wrappedRootValuesAreLeftToTheMapper() {
		JacksonPayloadConverter wrapping = new JacksonPayloadConverter(JsonMapper.builder()
			.enable(SerializationFeature.WRAP_ROOT_VALUE)
			.enable(DeserializationFeature.UNWRAP_ROOT_VALUE)
			.build());
		byte[] written = wrapping.write("order-42");
		assertThat(new String(written, StandardCharsets.UTF_8)).startsWith("{");
		assertThat(wrapping.read(written, String.class)).isEqualTo("order-42");
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> wrapping.read(bytes("\"order-42\""), String.class));
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

	record Order(String id, int items) {
	}

}
