package io.github.delayqueue.payload;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * JSON read into plain Java values and written from them, with whichever Jackson the application has: Jackson 3 where
 * it is on the class path (Spring Boot 4), else Jackson 2 (Spring Boot 3.5). Both lines read what either wrote, and
 * both lines' payload converters write the values it reads as the same JSON. For delayqueue's own JSON (recurring
 * definitions, payloads given as JSON text, the values the Redisson migration decodes); payloads go through a
 * {@link PayloadConverter}.
 *
 * @since 1.0.0
 */
public final class JsonValues {

	private static final Backend BACKEND = backend();

	private JsonValues() {
	}

	/**
	 * Whether a text is one JSON value.
	 * @param text the text
	 * @return whether it parses as JSON
	 */
	public static boolean isValue(String text) {
		return BACKEND.problem(text) == null;
	}

	/**
	 * What keeps a text from being one JSON value.
	 * @param text the text
	 * @return the parser's complaint, or {@code null} if the text is one JSON value
	 */
	public static @Nullable String problem(String text) {
		return BACKEND.problem(text);
	}

	/**
	 * Reads a JSON value as plain Java values: objects as {@code Map<String, Object>} (in their order), arrays as
	 * {@code List<Object>}, strings, booleans, {@code null}, whole numbers as {@code Integer}, {@code Long} or
	 * {@code BigInteger}, and other numbers as {@code BigDecimal}, exactly as written ({@code 42.50} stays
	 * {@code 42.50}).
	 * @param bytes its UTF-8 bytes
	 * @return the value
	 * @throws IllegalArgumentException if the bytes are not one JSON value
	 */
	public static @Nullable Object read(byte[] bytes) {
		return BACKEND.read(bytes);
	}

	/**
	 * Reads a JSON object.
	 * @param bytes its UTF-8 bytes
	 * @return its fields, as {@link #read(byte[])} reads them
	 * @throws IllegalArgumentException if the bytes are not a JSON object
	 */
	public static Map<String, Object> readObject(byte[] bytes) {
		return fields(read(bytes));
	}

	/**
	 * Writes plain Java values as JSON.
	 * @param value a value as {@link #read(byte[])} returns them
	 * @return its UTF-8 bytes
	 */
	public static byte[] write(@Nullable Object value) {
		return BACKEND.write(value);
	}

	private static Backend backend() {
		ClassLoader classLoader = JsonValues.class.getClassLoader();
		if (ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", classLoader)) {
			return new Jackson3();
		}
		if (ClassUtils.isPresent("com.fasterxml.jackson.databind.ObjectMapper", classLoader)) {
			return new Jackson2();
		}
		return new Missing();
	}

	private interface Backend {

		@Nullable String problem(String text);

		@Nullable Object read(byte[] bytes);

		byte[] write(@Nullable Object value);

	}

	private static final class Jackson3 implements Backend {

		private final tools.jackson.databind.json.JsonMapper mapper = tools.jackson.databind.json.JsonMapper.builder()
			.enable(tools.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.build();

		@Override
		public @Nullable String problem(String text) {
			try {
				return this.mapper.readTree(text).isMissingNode() ? "no JSON value" : null;
			}
			catch (tools.jackson.core.JacksonException ex) {
				return ex.getOriginalMessage();
			}
		}

		@Override
		public @Nullable Object read(byte[] bytes) {
			try {
				return this.mapper.readValue(bytes, Object.class);
			}
			catch (tools.jackson.core.JacksonException ex) {
				throw new IllegalArgumentException(ex.getOriginalMessage(), ex);
			}
		}

		@Override
		public byte[] write(@Nullable Object value) {
			return this.mapper.writeValueAsBytes(value);
		}

	}

	private static final class Jackson2 implements Backend {

		/** Strict as Jackson 3 is by default: text after the value is an error. */
		private final com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper()
			.enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
			.enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

		@Override
		public @Nullable String problem(String text) {
			try {
				return this.mapper.readTree(text).isMissingNode() ? "no JSON value" : null;
			}
			catch (com.fasterxml.jackson.core.JacksonException ex) {
				return ex.getOriginalMessage();
			}
		}

		@Override
		public @Nullable Object read(byte[] bytes) {
			try {
				return this.mapper.readValue(bytes, Object.class);
			}
			catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
				throw new IllegalArgumentException(ex.getOriginalMessage(), ex);
			}
			catch (java.io.IOException ex) {
				throw new IllegalArgumentException(ex.getMessage(), ex);
			}
		}

		@Override
		public byte[] write(@Nullable Object value) {
			try {
				return this.mapper.writeValueAsBytes(value);
			}
			catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
				throw new IllegalArgumentException(ex.getMessage(), ex);
			}
		}

	}

	private static final class Missing implements Backend {

		@Override
		public @Nullable String problem(String text) {
			throw missing();
		}

		@Override
		public @Nullable Object read(byte[] bytes) {
			throw missing();
		}

		@Override
		public byte[] write(@Nullable Object value) {
			throw missing();
		}

		private static IllegalStateException missing() {
			return new IllegalStateException("delayqueue reads and writes its own JSON with Jackson, and found none "
					+ "(tools.jackson.core:jackson-databind or com.fasterxml.jackson.core:jackson-databind)");
		}

	}

	private static Map<String, Object> fields(@Nullable Object value) {
		if (!(value instanceof Map<?, ?> map)) {
			throw new IllegalArgumentException("not a JSON object");
		}
		Map<String, Object> fields = new LinkedHashMap<>();
		map.forEach((key, field) -> fields.put(String.valueOf(key), field));
		return fields;
	}

}
