package io.github.delayqueue.migration.redisson;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Collectors;

import io.github.delayqueue.payload.JsonValues;

/**
 * The Redisson codecs whose values the migration reads itself, without Redisson, and how each becomes a delayqueue
 * payload (delayqueue stores payloads as JSON and the listener's parameter type reads them). Decoding never loads a
 * class: the class names {@code JsonJacksonCodec} writes are dropped, not resolved, and nothing is deserialised
 * with Java serialisation. Values of any other codec are read with the application's own codec, handed over as an
 * {@link ApplicationCodec}.
 *
 * @since 1.0.0
 */
public enum RedissonCodec implements ValueDecoder {

	/**
	 * {@code org.redisson.client.codec.StringCodec} (UTF-8, its default): the value is the string, delivered to a
	 * {@code String} listener parameter as the old consumer received it (stored as a JSON string).
	 */
	STRING_CODEC("org.redisson.client.codec.StringCodec") {

		@Override
		public Object payload(byte[] value) {
			try {
				return StandardCharsets.UTF_8.newDecoder()
					.onMalformedInput(CodingErrorAction.REPORT)
					.onUnmappableCharacter(CodingErrorAction.REPORT)
					.decode(ByteBuffer.wrap(value))
					.toString();
			}
			catch (CharacterCodingException ex) {
				throw new IllegalArgumentException("the value is not UTF-8 text", ex);
			}
		}

	},

	/**
	 * {@code org.redisson.codec.JsonJacksonCodec}: the value is JSON with Jackson 2's default typing; the payload is
	 * that JSON without its type information (see {@link JacksonTypeInfo}), read by the listener as its parameter
	 * type.
	 */
	JSON_JACKSON_CODEC("org.redisson.codec.JsonJacksonCodec") {

		@Override
		public Object payload(byte[] value) {
			Object json;
			try {
				json = JsonValues.read(value);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("the value is not JSON: " + ex.getMessage(), ex);
			}
			Object payload = JacksonTypeInfo.strip(json);
			if (payload == null) {
				throw new IllegalArgumentException("the value is JSON null, which is no payload");
			}
			return payload;
		}

	};

	private final String className;

	RedissonCodec(String className) {
		this.className = className;
	}

	/**
	 * The Redisson class of this codec.
	 * @return the fully qualified class name
	 */
	public String className() {
		return this.className;
	}

	/**
	 * The simple name of the Redisson class, such as {@code StringCodec}.
	 * @return the simple name
	 */
	@Override
	public String simpleName() {
		return this.className.substring(this.className.lastIndexOf('.') + 1);
	}

	/**
	 * Turns a value this codec wrote into the payload to schedule.
	 * @param value the codec's bytes
	 * @return a {@code String}, or JSON as plain values (maps, lists, strings, numbers as written, booleans), which
	 * every payload converter writes as the same JSON
	 * @throws IllegalArgumentException if this codec did not write these bytes
	 */
	@Override
	public abstract Object payload(byte[] value);

	/**
	 * The codec of a Redisson class name, simple ({@code JsonJacksonCodec}) or fully qualified.
	 * @param name the name of the codec the queue was written with
	 * @return the codec
	 * @throws IllegalArgumentException naming the codec if it is not one the migration reads itself
	 */
	public static RedissonCodec named(String name) {
		String trimmed = (name != null) ? name.trim() : "";
		for (RedissonCodec codec : values()) {
			if (codec.className.equals(trimmed) || codec.simpleName().equals(trimmed)) {
				return codec;
			}
		}
		String supported = Arrays.stream(values())
			.map((codec) -> codec.simpleName() + " (" + codec.className + ")")
			.collect(Collectors.joining(" and "));
		throw new IllegalArgumentException("Redisson codec '" + trimmed + "' is not supported: the migration reads "
				+ supported + " itself. Values of other codecs (such as Kryo5Codec, Redisson's default, or "
				+ "SerializationCodec) name Java types that the migration loads only through the application's own "
				+ "codec: run it with Redisson and your classes on the class path and name the codec's class "
				+ "(such as org.redisson.codec.Kryo5Codec), or pass ApplicationCodec.of(codec)");
	}

}
