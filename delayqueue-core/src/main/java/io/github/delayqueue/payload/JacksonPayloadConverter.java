package io.github.delayqueue.payload;

import java.lang.reflect.Type;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.jdk.StringSerializer;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link PayloadConverter} that writes JSON with a Jackson 3 {@link JsonMapper}, usually the application's
 * own (so its modules and settings apply). No default typing: the JSON carries no class names. What it writes,
 * {@link Jackson2PayloadConverter} reads, and the other way round: both store the payload's plain JSON.
 * <p>
 * A {@code String} payload of printable ASCII without quotes or backslashes (an order id, say) is written and read
 * without the mapper's generator and parser, as long as the mapper reads and writes strings with Jackson's own
 * (de)serializer and wraps no root value: its JSON is the same string literal either way, and reading it so allocates a fraction.
 *
 * @since 0.1.0
 */
public class JacksonPayloadConverter extends JsonPayloadConverterSupport<ObjectReader> {

	private final JsonMapper mapper;

	/**
	 * Creates a converter with a mapper of Jackson's defaults.
	 */
	public JacksonPayloadConverter() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Creates a converter with the given mapper.
	 * @param mapper the mapper
	 */
	public JacksonPayloadConverter(JsonMapper mapper) {
		Assert.notNull(mapper, "JsonMapper must not be null");
		this.mapper = mapper;
	}

	@Override
	byte[] writeJson(Object payload) {
		return this.mapper.writeValueAsBytes(payload);
	}

	@Override
	ObjectReader readerFor(Type type) {
		return this.mapper.readerFor(this.mapper.constructType(type));
	}

	@Override
	@Nullable Object readJson(ObjectReader reader, byte[] bytes) {
		return reader.readValue(bytes);
	}

	@Override
	String typeName(ObjectReader reader) {
		return reader.getValueType().toCanonical();
	}

	@Override
	String describe(RuntimeException ex) {
		return (ex instanceof JacksonException jackson) ? jackson.getOriginalMessage() : String.valueOf(ex.getMessage());
	}

	@Override
	boolean writesPlainStrings() {
		return !this.mapper.isEnabled(SerializationFeature.WRAP_ROOT_VALUE)
				&& this.mapper._serializationContext().findRootValueSerializer(String.class)
					.getClass() == StringSerializer.class;
	}

	@Override
	boolean readsPlainStrings() {
		return !this.mapper.isEnabled(DeserializationFeature.UNWRAP_ROOT_VALUE)
				&& this.mapper._deserializationContext()
					.findRootValueDeserializer(this.mapper.constructType(String.class))
					.getClass() == StringDeserializer.class;
	}

}
