package io.github.delayqueue.migration.redisson;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;


/**
 * Removes the type information that Redisson's {@code JsonJacksonCodec} adds (Jackson 2 default typing for
 * non-final types, class names as {@code @class}), leaving the plain JSON a listener reads as its own type. The
 * class names are dropped, never resolved.
 * <p>
 * That typing writes a typed object as {@code {"@class": "com.acme.Order", ...}} and a typed value that is not an
 * object (a collection, an array of a non-final type, a {@code Long}, a {@code BigDecimal}, a {@code Date}, an enum)
 * as a two-element array {@code ["java.util.ArrayList", [...]]}. So: an object loses its {@code @class} property,
 * and an array of two elements whose first is a string shaped like a Java class name becomes its second element.
 * The one value read wrongly is an untyped array (of a final element type, such as {@code String[]}) of exactly two
 * elements whose first is a string shaped like a class name ({@code ["com.acme.Order", "x"]} becomes {@code "x"}).
 */
final class JacksonTypeInfo {

	/** The property {@code JsonJacksonCodec} names the class with. */
	static final String CLASS_PROPERTY = "@class";

	/** A binary class name: qualified ({@code java.util.ArrayList}, {@code a.B$C}), or an array descriptor. */
	private static final Pattern CLASS_NAME = Pattern
		.compile("(\\[+([BCDFIJSZ]|L[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+;))"
				+ "|([\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+)");

	private JacksonTypeInfo() {
	}

	/**
	 * The JSON without {@code JsonJacksonCodec}'s type information.
	 * @param value the JSON as the codec wrote it, read as plain values (see
	 * {@link io.github.delayqueue.payload.JsonValues#read(byte[])})
	 * @return the plain JSON, as plain values (new maps and lists; the given ones are not changed)
	 */
	static @Nullable Object strip(@Nullable Object value) {
		if (value instanceof Map<?, ?> object) {
			Map<Object, @Nullable Object> plain = new LinkedHashMap<>();
			object.forEach((name, property) -> {
				if (!CLASS_PROPERTY.equals(name)) {
					plain.put(name, strip(property));
				}
			});
			return plain;
		}
		if (value instanceof List<?> array) {
			if (isTypeWrapper(array)) {
				return strip(array.get(1));
			}
			List<@Nullable Object> plain = new ArrayList<>(array.size());
			for (Object element : array) {
				plain.add(strip(element));
			}
			return plain;
		}
		return value;
	}

	private static boolean isTypeWrapper(List<?> array) {
		return array.size() == 2 && array.get(0) instanceof String name && CLASS_NAME.matcher(name).matches();
	}

}
