package io.github.delayqueue.payload;

import java.io.IOException;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import org.junit.jupiter.api.Test;

import org.springframework.core.ParameterizedTypeReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The Jackson 2 converter (Spring Boot 3.5): it stores what the Jackson 3 converter stores, so that instances on both
 * lines share a topic, each reading what the other wrote; and it takes the plain-string shortcut only while the
 * mapper's own string handling is Jackson's.
 */
class Jackson2PayloadConverterTests {

	private final Jackson2PayloadConverter jackson2 = new Jackson2PayloadConverter();

	private final JacksonPayloadConverter jackson3 = new JacksonPayloadConverter();

	@Test
	void eachLineReadsWhatTheOtherWrote() {
		Order order = new Order("o-1", 3, List.of(new Line("book", new BigDecimal("12.50"))), Status.OPEN,
				Map.of("tenant", "acme"));
		Type lines = new ParameterizedTypeReference<List<Line>>() {
		}.getType();
		List<Object[]> payloads = List.of(new Object[] { order, Order.class },
				new Object[] { List.of(new Line("pen", BigDecimal.ONE)), lines },
				new Object[] { "order-42", String.class }, new Object[] { "say \"grüße\"\t😀", String.class },
				new Object[] { 42L, Long.class });
		for (Object[] payload : payloads) {
			byte[] byJackson2 = this.jackson2.write(payload[0]);
			byte[] byJackson3 = this.jackson3.write(payload[0]);
			assertThat(this.jackson3.read(byJackson2, (Type) payload[1])).as("Jackson 3 reads Jackson 2's")
				.isEqualTo(payload[0]);
			assertThat(this.jackson2.read(byJackson3, (Type) payload[1])).as("Jackson 2 reads Jackson 3's")
				.isEqualTo(payload[0]);
			assertThat(this.jackson2.read(byJackson2, (Type) payload[1])).isEqualTo(payload[0]);
		}
	}

	@Test
	void plainStringsAreTheLiteralTheMapperWrites() throws IOException {
		ObjectMapper mapper = new ObjectMapper();
		for (String value : List.of("order-42", "", "a:b|c#1@x.y_z", "{not json}")) {
			assertThat(this.jackson2.write(value)).isEqualTo(mapper.writeValueAsBytes(value));
			assertThat(this.jackson2.read(this.jackson2.write(value), String.class)).isEqualTo(value);
		}
	}

	@Test
	void badJsonAndJsonNullAreConversionErrorsNamingTheType() {
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.jackson2.read(bytes("\"unterminated"), String.class));
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.jackson2.read(bytes("{\"id\": [1]}"), Order.class))
			.withMessageStartingWith("Payload cannot be read as " + Order.class.getName());
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> this.jackson2.read(bytes("null"), Order.class))
			.withMessageContaining("JSON null");
	}

	@Test
	void aPayloadTheMapperCannotWriteIsAClearError() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.jackson2.write(new Object()))
			.withMessageStartingWith("Payload of type java.lang.Object cannot be serialised as JSON");
	}

	@Test
	void aMapperWithItsOwnStringHandlingIsAlwaysAsked() {
		SimpleModule custom = new SimpleModule().addDeserializer(String.class, new JsonDeserializer<>() {
			@Override
			public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
				return parser.getText().toUpperCase(Locale.ROOT);
			}
		}).addSerializer(String.class, new JsonSerializer<>() {
			@Override
			public void serialize(String value, JsonGenerator generator, SerializerProvider provider)
					throws IOException {
				generator.writeString(new StringBuilder(value).reverse().toString());
			}
		});
		Jackson2PayloadConverter converter = new Jackson2PayloadConverter(new ObjectMapper().registerModule(custom));
		assertThat(converter.read(bytes("\"order-42\""), String.class)).isEqualTo("ORDER-42");
		assertThat(new String(converter.write("abc"), StandardCharsets.UTF_8)).isEqualTo("\"cba\"");
	}

	@Test
	void wrappedRootValuesAreLeftToTheMapper() {
		Jackson2PayloadConverter wrapping = new Jackson2PayloadConverter(new ObjectMapper()
			.enable(SerializationFeature.WRAP_ROOT_VALUE)
			.enable(DeserializationFeature.UNWRAP_ROOT_VALUE));
		byte[] written = wrapping.write("order-42");
		assertThat(new String(written, StandardCharsets.UTF_8)).startsWith("{");
		assertThat(wrapping.read(written, String.class)).isEqualTo("order-42");
	}

	private static byte[] bytes(String json) {
		return json.getBytes(StandardCharsets.UTF_8);
	}

	enum Status {

		OPEN, PAID

	}

	record Line(String item, BigDecimal price) {
	}

	record Order(String id, int items, List<Line> lines, Status status, Map<String, String> labels) {
	}

}
