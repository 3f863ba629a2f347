package io.github.delayqueue.migration.redisson;

import org.junit.jupiter.api.Test;
import java.nio.charset.StandardCharsets;

import io.github.delayqueue.payload.JsonValues;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What is left of JSON that {@code JsonJacksonCodec} wrote once its type information is dropped (the integration
 * test reads what Redisson itself wrote; these are the shapes spelled out).
 */
class JacksonTypeInfoTests {

	@Test
	void typedObjectsLoseTheirClassPropertyAtEveryDepth() {
		assertThat(strip("{\"@class\":\"com.acme.Order\",\"id\":\"o-1\","
				+ "\"customer\":{\"@class\":\"com.acme.Customer\",\"name\":\"alice\"}}"))
			.isEqualTo("{\"id\":\"o-1\",\"customer\":{\"name\":\"alice\"}}");
	}

	@Test
	void typeWrappersBecomeTheValueTheyWrap() {
		assertThat(strip("[\"java.util.ArrayList\",[[\"java.lang.Long\",5],\"x\"]]")).isEqualTo("[5,\"x\"]");
		assertThat(strip("[\"java.util.ImmutableCollections$ListN\",[]]")).isEqualTo("[]");
		assertThat(strip("[\"[Ljava.lang.Object;\",[1]]")).isEqualTo("[1]");
		assertThat(strip("[\"com.acme.Status\",\"PAID\"]")).isEqualTo("\"PAID\"");
	}

	@Test
	void arraysThatAreNotWrappersStay() {
		assertThat(strip("[\"remind\",\"alice\"]")).isEqualTo("[\"remind\",\"alice\"]");
		assertThat(strip("[\"a.b\",1,2]")).isEqualTo("[\"a.b\",1,2]");
		assertThat(strip("[1,\"java.lang.Long\"]")).isEqualTo("[1,\"java.lang.Long\"]");
		assertThat(strip("\"java.lang.Long\"")).isEqualTo("\"java.lang.Long\"");
	}

	private static String strip(String written) {
		Object json = JsonValues.read(written.getBytes(StandardCharsets.UTF_8));
		return new String(JsonValues.write(JacksonTypeInfo.strip(json)), StandardCharsets.UTF_8);
	}

}
