package io.github.delayqueue.redis.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.output.IntegerOutput;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import org.jspecify.annotations.Nullable;

/**
 * The arguments of one script call ({@code EVALSHA sha 1 key arg…}, or {@code EVAL text 1 key arg…}) as Lettuce
 * sends them, written straight from the caller's arrays. Lettuce's own {@link CommandArgs} wraps each argument in an
 * object of its own, grows a list to hold them and writes each length through a {@code String}: a claim that carries
 * a hundred acknowledgements paid for some three hundred objects that only lived until the bytes were written. Here
 * the one key is added as Lettuce adds keys (so that a cluster connection routes the call by it), and {@link #count()}
 * and {@link #encode(ByteBuf)} write every argument in the same RESP form. Whether this Lettuce writes a command the
 * way these arguments assume is checked once ({@link #ENCODED_AS_LETTUCE_DOES}): if it does not, scripts go through
 * Lettuce's own arguments instead.
 */
final class ScriptArguments extends CommandArgs<byte[], byte[]> {

	private static final byte[] CRLF = { '\r', '\n' };

	private static final byte[] ONE_KEY = { '1' };

	private static final byte[] TWO_KEYS = { '2' };

	/** Whether a command with these arguments is written byte for byte as with Lettuce's own. */
	static final boolean ENCODED_AS_LETTUCE_DOES = encodedAsLettuceDoes();

	private final byte[] script;

	private final byte[][] keyAndArgs;

	private final byte @Nullable [] meta;

	/**
	 * Arguments of a script call.
	 * @param script the SHA-1 digest in hex (for {@code EVALSHA}) or the script's text (for {@code EVAL})
	 * @param keyAndArgs the one key, then the arguments
	 */
	ScriptArguments(byte[] script, byte[][] keyAndArgs) {
		super(ByteArrayCodec.INSTANCE);
		this.script = script;
		this.keyAndArgs = keyAndArgs;
		this.meta = Script.metaKeyOf(keyAndArgs[0]);
		addKey(keyAndArgs[0]);
	}

	@Override
	public int count() {
		return 2 + this.keyAndArgs.length + ((this.meta != null) ? 1 : 0);
	}

	@Override
	public void encode(ByteBuf buf) {
		writeBulk(buf, this.script);
		byte[] meta = this.meta;
		writeBulk(buf, (meta != null) ? TWO_KEYS : ONE_KEY);
		writeBulk(buf, this.keyAndArgs[0]);
		if (meta != null) {
			writeBulk(buf, meta);
		}
		for (int i = 1; i < this.keyAndArgs.length; i++) {
			writeBulk(buf, this.keyAndArgs[i]);
		}
	}

	@Override
	public String toCommandString() {
		return "<script> " + ((this.meta != null) ? "2 <key> <meta>" : "1 <key>") + " <"
				+ (this.keyAndArgs.length - 1) + " arguments>";
	}

	private static void writeBulk(ByteBuf buf, byte[] value) {
		buf.writeByte('$');
		writeDigits(buf, value.length);
		buf.writeBytes(CRLF);
		buf.writeBytes(value);
		buf.writeBytes(CRLF);
	}

	private static void writeDigits(ByteBuf buf, int value) {
		if (value < 10) {
			buf.writeByte('0' + value);
			return;
		}
		int divisor = 10;
		while (divisor <= value / 10) {
			divisor *= 10;
		}
		for (; divisor > 0; divisor /= 10) {
			buf.writeByte('0' + (value / divisor) % 10);
		}
	}

	private static boolean encodedAsLettuceDoes() {
		try {
			byte[][] keyAndArgs = { "{t}:pending".getBytes(StandardCharsets.UTF_8), new byte[0], new byte[] { 7 },
					new byte[123_456], "0123456789".getBytes(StandardCharsets.UTF_8) };
			byte[] sha = "0123456789abcdef0123456789abcdef01234567".getBytes(StandardCharsets.US_ASCII);
			CommandArgs<byte[], byte[]> lettuce = lettuceArguments(sha, keyAndArgs);
			ScriptArguments ours = new ScriptArguments(sha, keyAndArgs);
			return Arrays.equals(written(lettuce), written(ours))
					&& ByteBuffer.wrap(keyAndArgs[0]).equals(ours.getFirstEncodedKey());
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
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


	/** The same arguments through Lettuce's own {@link CommandArgs}: the key, and a pending key's meta key with it. */
	static CommandArgs<byte[], byte[]> lettuceArguments(byte[] script, byte[][] keyAndArgs) {
		byte[] meta = Script.metaKeyOf(keyAndArgs[0]);
		CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE).add(script)
			.add((meta != null) ? 2 : 1)
			.addKey(keyAndArgs[0]);
		if (meta != null) {
			args.addKey(meta);
		}
		return args.addValues(Arrays.copyOfRange(keyAndArgs, 1, keyAndArgs.length));
	}

}
