package io.github.delayqueue.payload;

import java.lang.reflect.Type;

import org.springframework.util.ClassUtils;

/**
 * Turns payloads into the bytes stored in Redis and back. Implementations must not read type names from the
 * stored bytes: the type to read is always given by the caller (the listener's parameter type).
 *
 * @since 0.1.0
 */
public interface PayloadConverter {

	/**
	 * Serialises a payload.
	 * @param payload the payload, not {@code null}
	 * @return the bytes to store
	 * @throws IllegalArgumentException if the payload cannot be serialised
	 */
	byte[] write(Object payload);

	/**
	 * Reads a payload as the given type.
	 * @param bytes the stored bytes
	 * @param type the type to read, possibly generic (such as {@code List<Order>})
	 * @return the payload
	 * @throws PayloadConversionException if the bytes cannot be read as that type
	 */
	Object read(byte[] bytes, Type type);

	/**
	 * A JSON converter with a mapper of Jackson's defaults: a {@link JacksonPayloadConverter} where Jackson 3 is on
	 * the class path (Spring Boot 4), else a {@link Jackson2PayloadConverter} (Spring Boot 3.5). Each reads what the
	 * other writes. An application with a mapper of its own passes it to one of them (the starters do).
	 * @return the converter
	 * @throws IllegalStateException if neither Jackson is on the class path
	 * @since 1.0.0
	 */
	static PayloadConverter json() {
		ClassLoader classLoader = PayloadConverter.class.getClassLoader();
		if (ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", classLoader)) {
			return new JacksonPayloadConverter();
		}
		if (ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", classLoader)) {
			return new Jackson2PayloadConverter();
		}
		throw new IllegalStateException("Payloads are JSON: add tools.jackson.core:jackson-databind (Jackson 3) or "
				+ "com.fasterxml.jackson.core:jackson-databind (Jackson 2), or give a PayloadConverter of your own");
	}

}
