package io.github.delayqueue.migration.redisson;

import java.io.IOException;
import java.lang.reflect.Constructor;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.redisson.client.codec.Codec;
import org.redisson.client.handler.State;

import org.springframework.beans.BeanUtils;
import org.springframework.util.Assert;
import org.springframework.util.ClassUtils;

/**
 * The application's own Redisson {@link Codec}, reading the values it wrote: {@code Kryo5Codec} (Redisson's
 * default), {@code SerializationCodec}, {@code MarshallingCodec}, {@code SmileJacksonCodec}, a
 * {@code CompositeCodec} or a codec of the application's own. Each value is decoded with the codec's value decoder
 * into the application's object, and that object becomes the payload, which delayqueue's {@code PayloadConverter}
 * stores as JSON (so the listener reads it as its parameter type, as it reads every payload).
 * <p>
 * Needs Redisson (an optional dependency of this module) and the classes the values hold on the class path, as the
 * application that wrote them had. <b>Security.</b> delayqueue never reads a type name from Redis and never uses
 * Java serialisation of its own; these codecs do both, as they did when the application read its queue with
 * Redisson: the values name the classes to create, and {@code SerializationCodec} and {@code MarshallingCodec}
 * are Java serialisation. Hand over a codec only to read your own legacy data, once, from a Redis whose writers you
 * trust, and filter what it may create where the codec can without changing its format
 * ({@code new SerializationCodec(classLoader, allowedClasses)}). Configure the codec exactly as the application that
 * wrote the queue did: {@code Kryo5Codec}'s allowed classes, for one, are a registration list that changes what it
 * writes, so a codec with that list reads only values written with the same list.
 *
 * <pre class="code">
 * MigrationRequest.of("orders", "order-timeout", ApplicationCodec.of(new Kryo5Codec()));
 * </pre>
 *
 * @since 1.0.0
 */
public final class ApplicationCodec implements ValueDecoder {

	private final Codec codec;

	private ApplicationCodec(Codec codec) {
		this.codec = codec;
	}

	/**
	 * Reads values with the given codec.
	 * @param codec the codec the Redisson queue was written with, configured as the application configured it
	 * @return the decoder
	 */
	public static ApplicationCodec of(Codec codec) {
		Assert.notNull(codec, "Codec must not be null");
		return new ApplicationCodec(codec);
	}

	/**
	 * Reads values with a new instance of the named codec class, created with its {@code ClassLoader} constructor
	 * where it has one (given {@code classLoader}, so the application's classes are found), else with its no-argument
	 * constructor. The name comes from the application's configuration, never from Redis.
	 * @param className the fully qualified name of a Redisson {@code Codec} class, such as
	 * {@code org.redisson.codec.Kryo5Codec}
	 * @param classLoader the class loader of the application's classes
	 * @return the decoder
	 * @throws IllegalArgumentException if the class is missing, is not a Redisson codec, or cannot be created
	 */
	public static ApplicationCodec named(String className, ClassLoader classLoader) {
		Class<?> type;
		try {
			type = ClassUtils.forName(className, classLoader);
		}
		catch (ClassNotFoundException | LinkageError ex) {
			throw new IllegalArgumentException("Redisson codec class '" + className + "' is not on the class path",
					ex);
		}
		Assert.isTrue(Codec.class.isAssignableFrom(type),
				() -> "'" + className + "' is not a Redisson codec (an org.redisson.client.codec.Codec)");
		Constructor<?> withClassLoader = ClassUtils.getConstructorIfAvailable(type, ClassLoader.class);
		try {
			Object codec = (withClassLoader != null) ? BeanUtils.instantiateClass(withClassLoader, classLoader)
					: BeanUtils.instantiateClass(type);
			return of((Codec) codec);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException("Redisson codec '" + className + "' cannot be created with a class "
					+ "loader or no arguments (" + ex.getMessage() + "): pass ApplicationCodec.of(codec) in code", ex);
		}
	}

	/**
	 * The codec values are read with.
	 * @return the codec
	 */
	public Codec codec() {
		return this.codec;
	}

	@Override
	public String simpleName() {
		return this.codec.getClass().getSimpleName();
	}

	@Override
	public Object payload(byte[] value) {
		ByteBuf buffer = Unpooled.wrappedBuffer(value);
		Object decoded;
		try {
			decoded = this.codec.getValueDecoder().decode(buffer, new State());
		}
		catch (IOException | RuntimeException | LinkageError ex) {
			throw new IllegalArgumentException("the codec cannot decode the value (" + ex + ")", ex);
		}
		finally {
			buffer.release();
		}
		if (decoded == null) {
			throw new IllegalArgumentException("the codec decodes the value as null, which delayqueue cannot store");
		}
		return decoded;
	}

	@Override
	public String toString() {
		return "ApplicationCodec[" + this.codec.getClass().getName() + "]";
	}

}
