package io.github.delayqueue.migration.redisson;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Reading {@code struct.pack('Bc0Lc0', ...)} elements (real ones are read in the integration test).
 */
class StoredElementsTests {

	@Test
	void theValueFollowsTheRandomIdAndItsLength() {
		assertThat(StoredElements.value(element(8, "hello".getBytes(), 5))).isEqualTo("hello".getBytes());
		assertThat(StoredElements.value(element(8, new byte[0], 0))).isEmpty();
	}

	@Test
	void anElementOfAnotherLayoutIsRefusedSayingWhy() {
		assertThatIllegalArgumentException().isThrownBy(() -> StoredElements.value(new byte[0]))
			.withMessage("the element is empty");
		assertThatIllegalArgumentException().isThrownBy(() -> StoredElements.value(new byte[] { 8, 1, 2 }))
			.withMessage("the element has 3 bytes, too few for a 8-byte random id and a value length");
		assertThatIllegalArgumentException().isThrownBy(() -> StoredElements.value(element(8, "hello".getBytes(), 9)))
			.withMessage("the element's value length says 9 bytes, but 5 follow");
	}

	private static byte[] element(int randomLength, byte[] value, long declaredLength) {
		return ByteBuffer.allocate(1 + randomLength + 8 + value.length)
			.order(ByteOrder.LITTLE_ENDIAN)
			.put((byte) randomLength)
			.put(new byte[randomLength])
			.putLong(declaredLength)
			.put(value)
			.array();
	}

}
