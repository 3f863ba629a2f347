package io.github.delayqueue.migration.redisson;

/**
 * Turns the bytes a Redisson codec wrote for one element's value into the payload the migration schedules (which
 * delayqueue's {@code PayloadConverter} then stores as JSON). Two kinds exist:
 * <ul>
 * <li>{@link RedissonCodec}: {@code StringCodec} and {@code JsonJacksonCodec}, decoded by the migration itself,
 * without Redisson and without loading a class named in Redis;</li>
 * <li>{@link ApplicationCodec}: any Redisson {@code Codec} the application hands over ({@code Kryo5Codec},
 * Redisson's default, {@code SerializationCodec}, {@code MarshallingCodec}, ...), decoded by that codec, with
 * Redisson and the application's classes on the class path.</li>
 * </ul>
 *
 * @since 1.0.0
 */
public interface ValueDecoder {

	/**
	 * The simple name of the codec, such as {@code Kryo5Codec}, for logs and errors.
	 * @return the name
	 */
	String simpleName();

	/**
	 * Turns a value the codec wrote into the payload to schedule.
	 * @param value the codec's bytes
	 * @return the payload, never {@code null}
	 * @throws IllegalArgumentException if the codec cannot read these bytes
	 */
	Object payload(byte[] value);

}
