package io.github.delayqueue.payload;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.util.Assert;

/**
 * A {@link PayloadConverter} that writes JSON with a Jackson 3 {@link JsonMapper}, usually the application's
 * own (so its modules and settings apply). No default typing: the JSON carries no class names.
 *
 * @since 0.1.0
 */
public class JacksonPayloadConverter implements PayloadConverter {

	private final JsonMapper mapper;

	/** A reader per payload type: it keeps the type's deserializer, so a read does not look it up again. */
	private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

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
	public byte[] write(Object payload) {
		Assert.isTrue(payload != null, "Payload must not be null");
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Payload of type " + payload.getClass().getName()
					+ " cannot be serialised as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public Object read(byte[] bytes, Type type) {
		ObjectReader reader = this.readers.computeIfAbsent(type,
				(key) -> this.mapper.readerFor(this.mapper.constructType(key)));
		JavaType javaType = reader.getValueType();
		try {
			Object value = reader.readValue(bytes);
			if (value == null) {
				throw new PayloadConversionException("Payload is JSON null, which cannot be delivered as "
						+ javaType.toCanonical(), new IllegalArgumentException("null payload"));
			}
			return value;
		}
		catch (JacksonException ex) {
			throw new PayloadConversionException(
					"Payload cannot be read as " + javaType.toCanonical() + ": " + ex.getOriginalMessage(), ex);
		}
	}

}
