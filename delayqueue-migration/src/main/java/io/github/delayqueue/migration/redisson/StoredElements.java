package io.github.delayqueue.migration.redisson;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Reads the elements of a delayed queue's sorted set and list. {@code RedissonDelayedQueue.offer} stores each as
 * {@code struct.pack('Bc0Lc0', #random, random, #value, value)}: one byte giving the length of a random id (8),
 * the random id, the value's length as an unsigned 64-bit little-endian integer (Lua's {@code L} on the 64-bit
 * little-endian machines Redis runs on), then the value as the codec wrote it. The random id makes every offer's
 * element unique, even when two offers carry the same value.
 */
final class StoredElements {

	private static final int LENGTH_BYTES = Long.BYTES;

	private StoredElements() {
	}

	/**
	 * The codec bytes inside a stored element.
	 * @param element the element as stored
	 * @return the value the codec wrote
	 * @throws IllegalArgumentException if the element does not have the layout described above
	 */
	static byte[] value(byte[] element) {
		if (element.length < 1) {
			throw new IllegalArgumentException("the element is empty");
		}
		int randomLength = Byte.toUnsignedInt(element[0]);
		int lengthAt = 1 + randomLength;
		if (element.length < lengthAt + LENGTH_BYTES) {
			throw new IllegalArgumentException("the element has " + element.length + " bytes, too few for a "
					+ randomLength + "-byte random id and a value length");
		}
		long valueLength = ByteBuffer.wrap(element, lengthAt, LENGTH_BYTES).order(ByteOrder.LITTLE_ENDIAN).getLong();
		int valueAt = lengthAt + LENGTH_BYTES;
		if (valueLength != element.length - valueAt) {
			throw new IllegalArgumentException("the element's value length says " + Long.toUnsignedString(valueLength)
					+ " bytes, but " + (element.length - valueAt) + " follow");
		}
		return Arrays.copyOfRange(element, valueAt, element.length);
	}

}
