package io.github.delayqueue.test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The smallest RESP client that the helper needs: one connection, one command at a time, replies read as
 * text. It keeps the helper free of any Redis client library, so tests choose their own.
 */
final class RespClient implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	RespClient(String host, int port, int timeoutMillis) throws IOException {
		this.socket = new Socket();
		this.socket.connect(new InetSocketAddress(host, port), timeoutMillis);
		this.socket.setSoTimeout(timeoutMillis);
		this.in = new BufferedInputStream(this.socket.getInputStream());
		this.out = this.socket.getOutputStream();
	}

	/**
	 * Connects, sends one command, and returns its reply (see {@link #call(String...)}).
	 * @param port the server's loopback port
	 * @param args the command
	 * @return the reply
	 * @throws UncheckedIOException on an I/O failure or an error reply
	 */
	static String send(int port, String... args) {
		try (RespClient client = new RespClient("127.0.0.1", port, 5_000)) {
			return client.call(args);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Redis on port " + port + " failed " + java.util.Arrays.toString(args), ex);
		}
	}

	/**
	 * Sends one command and returns its reply: a status or bulk string as text, an integer as its decimal
	 * text, an array's elements joined by new lines, {@code null} for a null reply.
	 * @throws IOException on an I/O failure or an error reply
	 */
	String call(String... args) throws IOException {
		ByteArrayOutputStream request = new ByteArrayOutputStream();
		request.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
		for (String arg : args) {
			byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
			request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			request.write(bytes);
			request.write("\r\n".getBytes(StandardCharsets.US_ASCII));
		}
		this.out.write(request.toByteArray());
		this.out.flush();
		return readReply();
	}

	private String readReply() throws IOException {
		int type = this.in.read();
		if (type == -1) {
			throw new IOException("Connection closed by Redis");
		}
		String line = readLine();
		switch (type) {
			case '+', ':' -> {
				return line;
			}
			case '-' -> throw new IOException("Redis replied with an error: " + line);
			case '$' -> {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] data = this.in.readNBytes(length + 2);
				return new String(data, 0, length, StandardCharsets.UTF_8);
			}
			case '*' -> {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				StringBuilder joined = new StringBuilder();
				for (int i = 0; i < count; i++) {
					if (i > 0) {
						joined.append('\n');
					}
					joined.append(readReply());
				}
				return joined.toString();
			}
			default -> throw new IOException("Unexpected RESP reply type '" + (char) type + "'");
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int b;
		while ((b = this.in.read()) != -1) {
			if (b == '\r') {
				this.in.read();
				break;
			}
			line.write(b);
		}
		return line.toString(StandardCharsets.UTF_8);
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
