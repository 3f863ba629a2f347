package io.github.delayqueue.payload;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.deser.jdk.StringDeserializer;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.ser.jdk.StringSerializer;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * A {@link PayloadConverter} that writes JSON with a Jackson 3 {@link JsonMapper}, usually the application's
 * own (so its modules and settings apply). No default typing: the JSON carries no class names.
 * <p>
 * A {@code String} payload of printable ASCII without quotes or backslashes (an order id, say) is written and read
 * without the mapper's generator and parser, as long as the mapper reads and writes strings with Jackson's own
 * (de)serializer and wraps no root value: its JSON is the same string literal either way, and reading it so allocates a fraction.
 *
 * @since 0.1.0
 */
public class JacksonPayloadConverter implements PayloadConverter {

	private final JsonMapper mapper;

	/** A reader per payload type: it keeps the type's deserializer, so a read does not look it up again. */
	private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

	/** Whether the mapper writes strings with Jackson's own serializer; {@code null} until first asked. */
	private volatile @Nullable Boolean plainWrites;

	/** Whether the mapper reads strings with Jackson's own deserializer; {@code null} until first asked. */
	private volatile @Nullable Boolean plainReads;

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
		if (payload instanceof String text && plainWrites()) {
			byte[] plain = PlainJsonStrings.write(text);
			if (plain != null) {
				return plain;
			}
		}
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
		if (type == String.class && plainReads()) {
			String plain = PlainJsonStrings.read(bytes);
			if (plain != null) {
				return plain;
			}
		}
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

	private boolean plainWrites() {
		Boolean plain = this.plainWrites;
		if (plain == null) {
			plain = !this.mapper.isEnabled(SerializationFeature.WRAP_ROOT_VALUE)
					&& this.mapper._serializationContext().findRootValueSerializer(String.class)
						.getClass() == StringSerializer.class;
			this.plainWrites = plain;
		}
		return plain;
	}

	private boolean plainReads() {
		Boolean plain = this.plainReads;
		if (plain == null) {
			plain = !this.mapper.isEnabled(DeserializationFeature.UNWRAP_ROOT_VALUE)
					&& this.mapper._deserializationContext()
						.findRootValueDeserializer(this.mapper.constructType(String.class))
						.getClass() == StringDeserializer.class;
			this.plainReads = plain;
		}
		return plain;
	}

}
