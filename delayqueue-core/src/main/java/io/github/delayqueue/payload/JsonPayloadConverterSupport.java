package io.github.delayqueue.payload;

import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;

import org.springframework.util.Assert;

/**
 * What the JSON converters of both Jackson lines share: the plain-string shortcut, a reader per payload type, and
 * the errors a caller sees. A subclass only talks to its Jackson.
 *
 * @param <R> the Jackson reader of one type
 */
abstract class JsonPayloadConverterSupport<R> implements PayloadConverter {

	/** A reader per payload type: it keeps the type's deserializer, so a read does not look it up again. */
	private final Map<Type, R> readers = new ConcurrentHashMap<>();

	/** Whether the mapper writes strings with Jackson's own serializer; {@code null} until first asked. */
	private volatile @Nullable Boolean plainWrites;

	/** Whether the mapper reads strings with Jackson's own deserializer; {@code null} until first asked. */
	private volatile @Nullable Boolean plainReads;

	@Override
	public final byte[] write(Object payload) {
		Assert.isTrue(payload != null, "Payload must not be null");
		if (payload instanceof String text && plainWrites()) {
			byte[] plain = PlainJsonStrings.write(text);
			if (plain != null) {
				return plain;
			}
		}
		try {
			return writeJson(payload);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Payload of type " + payload.getClass().getName()
					+ " cannot be serialised as JSON: " + describe(ex), ex);
		}
	}

	@Override
	public final Object read(byte[] bytes, Type type) {
		if (type == String.class && plainReads()) {
			String plain = PlainJsonStrings.read(bytes);
			if (plain != null) {
				return plain;
			}
		}
		R reader = this.readers.computeIfAbsent(type, this::readerFor);
		Object value;
		try {
			value = readJson(reader, bytes);
		}
		catch (RuntimeException ex) {
			throw new PayloadConversionException(
					"Payload cannot be read as " + typeName(reader) + ": " + describe(ex), ex);
		}
		if (value == null) {
			throw new PayloadConversionException("Payload is JSON null, which cannot be delivered as "
					+ typeName(reader), new IllegalArgumentException("null payload"));
		}
		return value;
	}

	private boolean plainWrites() {
		Boolean plain = this.plainWrites;
		if (plain == null) {
			plain = writesPlainStrings();
			this.plainWrites = plain;
		}
		return plain;
	}

	private boolean plainReads() {
		Boolean plain = this.plainReads;
		if (plain == null) {
			plain = readsPlainStrings();
			this.plainReads = plain;
		}
		return plain;
	}

	/**
	 * Writes a payload with the mapper.
	 * @param payload the payload
	 * @return its JSON
	 * @throws RuntimeException a Jackson error, unchecked
	 */
	abstract byte[] writeJson(Object payload);

	/**
	 * Makes the reader of a type.
	 * @param type the payload type
	 * @return its reader
	 */
	abstract R readerFor(Type type);

	/**
	 * Reads JSON with a reader.
	 * @param reader the reader of the payload type
	 * @param bytes the JSON
	 * @return the value, or {@code null} for JSON {@code null}
	 * @throws RuntimeException a Jackson error, unchecked
	 */
	abstract @Nullable Object readJson(R reader, byte[] bytes);

	/**
	 * The canonical name of a reader's type, for errors.
	 * @param reader the reader
	 * @return the type's name
	 */
	abstract String typeName(R reader);

	/**
	 * A Jackson error's message without the location Jackson appends.
	 * @param ex the error
	 * @return its message
	 */
	abstract String describe(RuntimeException ex);

	/**
	 * Whether the mapper writes a string as Jackson's own serializer does, unwrapped.
	 * @return whether the plain shortcut gives the same bytes
	 */
	abstract boolean writesPlainStrings();

	/**
	 * Whether the mapper reads a string as Jackson's own deserializer does, unwrapped.
	 * @return whether the plain shortcut gives the same string
	 */
	abstract boolean readsPlainStrings();

}
