package io.github.delayqueue.migration.redisson;

import java.util.Map;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

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
	 * @param node the JSON as the codec wrote it
	 * @return the plain JSON (a new tree; the given one is not changed)
	 */
	static JsonNode strip(JsonNode node) {
		if (node.isObject()) {
			ObjectNode plain = JsonNodeFactory.instance.objectNode();
			for (Map.Entry<String, JsonNode> property : node.properties()) {
				if (!CLASS_PROPERTY.equals(property.getKey())) {
					plain.set(property.getKey(), strip(property.getValue()));
				}
			}
			return plain;
		}
		if (node.isArray()) {
			if (isTypeWrapper(node)) {
				return strip(node.get(1));
			}
			ArrayNode plain = JsonNodeFactory.instance.arrayNode(node.size());
			for (JsonNode element : node) {
				plain.add(strip(element));
			}
			return plain;
		}
		return node;
	}

	private static boolean isTypeWrapper(JsonNode array) {
		return array.size() == 2 && array.get(0).isString()
				&& CLASS_NAME.matcher(array.get(0).stringValue()).matches();
	}

}
