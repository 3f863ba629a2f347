package io.github.delayqueue.build;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A JSON answer of an HTTP API under test, walked as Jackson's trees are ({@code get} gives {@code null} for what is
 * not there, {@code as…} converts leniently), the same on every Boot line: the tests read answers with this rather
 * than with the Jackson of the application under test (Jackson 3 on Boot 4, Jackson 2 on Boot 3.5).
 */
public final class JsonTree implements Iterable<JsonTree> {

	private static final ObjectMapper MAPPER = new ObjectMapper()
		.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

	private final Object value;

	private JsonTree(Object value) {
		this.value = value;
	}

	/**
	 * Reads JSON text.
	 * @param text the text
	 * @return its tree
	 */
	public static JsonTree parse(String text) {
		return parse(text.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Reads JSON.
	 * @param json its UTF-8 bytes
	 * @return its tree
	 */
	public static JsonTree parse(byte[] json) {
		try {
			return new JsonTree(MAPPER.readValue(json, Object.class));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Not JSON: " + new String(json, StandardCharsets.UTF_8), ex);
		}
	}

	/**
	 * A property of an object.
	 * @param name its name
	 * @return the property, or {@code null} where this is no object or has no such property
	 */
	public JsonTree get(String name) {
		return (this.value instanceof Map<?, ?> object && object.containsKey(name)) ? new JsonTree(object.get(name))
				: null;
	}

	/**
	 * An element of an array.
	 * @param index its index
	 * @return the element, or {@code null} where this is no array or has no such element
	 */
	public JsonTree get(int index) {
		return (this.value instanceof List<?> array && index >= 0 && index < array.size())
				? new JsonTree(array.get(index)) : null;
	}

	/**
	 * Whether an object has a property.
	 * @param name its name
	 * @return whether it has
	 */
	public boolean has(String name) {
		return this.value instanceof Map<?, ?> object && object.containsKey(name);
	}

	/**
	 * Whether this is JSON {@code null}.
	 * @return whether it is
	 */
	public boolean isNull() {
		return this.value == null;
	}

	/**
	 * Whether this is an array.
	 * @return whether it is
	 */
	public boolean isArray() {
		return this.value instanceof List;
	}

	/**
	 * This as text: a string's value, a number's or boolean's JSON, {@code ""} for {@code null} or a container.
	 * @return the text
	 */
	public String asString() {
		if (this.value instanceof String text) {
			return text;
		}
		return (this.value instanceof Number || this.value instanceof Boolean) ? String.valueOf(this.value) : "";
	}

	/**
	 * This as a whole number: a number's, or a string's that holds one, else 0.
	 * @return the number
	 */
	public long asLong() {
		if (this.value instanceof Number number) {
			return number.longValue();
		}
		try {
			return (this.value instanceof String text) ? Long.parseLong(text.trim()) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * This as an {@code int}, as {@link #asLong()}.
	 * @return the number
	 */
	public int asInt() {
		return (int) asLong();
	}

	/**
	 * This as a {@code double}: a number's, else 0.
	 * @return the number
	 */
	public double asDouble() {
		return (this.value instanceof Number number) ? number.doubleValue() : 0;
	}

	/**
	 * A number exactly as written.
	 * @return the number, or {@code null} where this is no number
	 */
	public BigDecimal decimalValue() {
		if (this.value instanceof BigDecimal decimal) {
			return decimal;
		}
		return (this.value instanceof Number number) ? new BigDecimal(number.toString()) : null;
	}

	/**
	 * This as a boolean: {@code true} or {@code "true"}.
	 * @return the boolean
	 */
	public boolean asBoolean() {
		return Boolean.TRUE.equals(this.value) || "true".equals(this.value);
	}

	/**
	 * The elements of an array, or the properties of an object.
	 * @return how many
	 */
	public int size() {
		if (this.value instanceof List<?> array) {
			return array.size();
		}
		return (this.value instanceof Map<?, ?> object) ? object.size() : 0;
	}

	/**
	 * Whether {@link #size()} is 0.
	 * @return whether it is
	 */
	public boolean isEmpty() {
		return size() == 0;
	}

	/**
	 * The elements of an array, or the values of an object's properties.
	 * @return them
	 */
	public Stream<JsonTree> valueStream() {
		if (this.value instanceof List<?> array) {
			return array.stream().map(JsonTree::new);
		}
		return (this.value instanceof Map<?, ?> object) ? object.values().stream().map(JsonTree::new) : Stream.empty();
	}

	@Override
	public Iterator<JsonTree> iterator() {
		return valueStream().iterator();
	}

	@Override
	public String toString() {
		try {
			return MAPPER.writeValueAsString(this.value);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
