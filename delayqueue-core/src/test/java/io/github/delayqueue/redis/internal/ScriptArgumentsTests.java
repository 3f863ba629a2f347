package io.github.delayqueue.redis.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A script call's arguments written straight from the caller's arrays are the bytes Lettuce's own arguments write,
 * and route by the same key; the Lettuce on the class path passes the check that the store makes once.
 */
class ScriptArgumentsTests {

	@Test
	void theLettuceOnTheClassPathWritesScriptCallsAsTheseArgumentsAssume() {
		assertThat(ScriptArguments.ENCODED_AS_LETTUCE_DOES).isTrue();
	}

	@Test
	void argumentsOfEveryLengthAreWrittenAsLettuceWritesThem() {
		SplittableRandom random = new SplittableRandom(11);
		int[] lengths = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65_535, 65_536, 1_000_000 };
		for (int round = 0; round < 200; round++) {
			int count = 1 + random.nextInt(12);
			byte[][] keyAndArgs = new byte[count][];
			for (int i = 0; i < count; i++) {
				int length = (random.nextInt(3) == 0) ? lengths[random.nextInt(lengths.length)] : random.nextInt(40);
				keyAndArgs[i] = new byte[length];
				random.nextBytes(keyAndArgs[i]);
			}
			byte[] script = (round % 2 == 0) ? "0123456789abcdef0123456789abcdef01234567".getBytes(
					StandardCharsets.US_ASCII) : "return redis.call('TIME')".getBytes(StandardCharsets.UTF_8);
			CommandArgs<byte[], byte[]> lettuce = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(script)
				.add(1)
				.addKey(keyAndArgs[0])
				.addValues(Arrays.copyOfRange(keyAndArgs, 1, keyAndArgs.length));
			ScriptArguments ours = new ScriptArguments(script, keyAndArgs);
			assertThat(written(ours)).isEqualTo(written(lettuce));
			assertThat(ours.count()).isEqualTo(lettuce.count());
			assertThat(ours.getFirstEncodedKey()).isEqualTo(ByteBuffer.wrap(keyAndArgs[0]));
		}
	}

	private static byte[] written(CommandArgs<byte[], byte[]> args) {
		ByteBuf buf = Unpooled.buffer();
		try {
			new Command<>(CommandType.EVALSHA, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args).encode(buf);
			return ByteBufUtil.getBytes(buf);
		}
		finally {
			buf.release();
		}
	}

}
