package io.github.delayqueue.payload;

import java.lang.reflect.Type;

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

}
