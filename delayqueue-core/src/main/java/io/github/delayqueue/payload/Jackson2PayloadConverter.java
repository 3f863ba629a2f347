package io.github.delayqueue.payload;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Type;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import com.fasterxml.jackson.databind.ser.std.StringSerializer;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link PayloadConverter} that writes JSON with a Jackson 2 {@link ObjectMapper}, usually the application's own
 * (Spring Boot 3.5's). No default typing: the JSON carries no class names. It stores what
 * {@link JacksonPayloadConverter} (Jackson 3) stores, so that instances on both Jackson lines share a topic (a rolling
 * upgrade from Spring Boot 3.5 to 4): each reads what the other wrote.
 * <p>
 * A {@code String} payload of printable ASCII without quotes or backslashes is written and read without the mapper's
 * generator and parser, as long as the mapper reads and writes strings with Jackson's own (de)serializer and wraps no
 * root value, as {@link JacksonPayloadConverter} does.
 *
 * @since 1.0.0
 */
public class Jackson2PayloadConverter extends JsonPayloadConverterSupport<ObjectReader> {

	private final ObjectMapper mapper;

	/**
	 * Creates a converter with a mapper of Jackson's defaults.
	 */
	public Jackson2PayloadConverter() {
		this(new ObjectMapper());
	}

	/**
	 * Creates a converter with the given mapper.
	 * @param mapper the mapper
	 */
	public Jackson2PayloadConverter(ObjectMapper mapper) {
		Assert.notNull(mapper, "ObjectMapper must not be null");
		this.mapper = mapper;
	}

	@Override
	byte[] writeJson(Object payload) {
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JsonProcessingException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	ObjectReader readerFor(Type type) {
		return this.mapper.readerFor(this.mapper.constructType(type));
	}

	@Override
	@Nullable Object readJson(ObjectReader reader, byte[] bytes) {
		try {
			return reader.readValue(bytes);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	String typeName(ObjectReader reader) {
		return reader.getValueType().toCanonical();
	}

	@Override
	String describe(RuntimeException ex) {
		Throwable cause = (ex instanceof UncheckedIOException) ? ex.getCause() : ex;
		return (cause instanceof JsonProcessingException jackson) ? jackson.getOriginalMessage()
				: String.valueOf(cause.getMessage());
	}

	@Override
	boolean writesPlainStrings() {
		try {
			return !this.mapper.isEnabled(SerializationFeature.WRAP_ROOT_VALUE)
					&& this.mapper.getSerializerProviderInstance().findTypedValueSerializer(String.class, true, null)
						.getClass() == StringSerializer.class;
		}
		catch (IOException ex) {
			return false;
		}
	}

	@Override
	boolean readsPlainStrings() {
		if (this.mapper.isEnabled(DeserializationFeature.UNWRAP_ROOT_VALUE)
				|| !(this.mapper.getDeserializationContext() instanceof DefaultDeserializationContext blueprint)) {
			return false;
		}
		try {
			return blueprint.createDummyInstance(this.mapper.getDeserializationConfig())
				.findRootValueDeserializer(this.mapper.constructType(String.class))
				.getClass() == StringDeserializer.class;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
