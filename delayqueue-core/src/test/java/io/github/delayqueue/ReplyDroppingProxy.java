package io.github.delayqueue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a Redis server that, once armed, drops the first reply holding a given text instead of
 * passing it on, and closes that connection: Redis ran the command, its caller never hears of it. What the client
 * then does (Lettuce reconnects and, by default, sends the command again) is the client's own; while the proxy
 * refuses connections, it cannot. A reply is matched within one read from the server (a reply split across two reads
 * is passed on, and the test that armed the proxy sees that nothing was dropped).
 */
public final class ReplyDroppingProxy implements AutoCloseable {

	private final ServerSocket server;

	private final String host;

	private final int port;

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private final AtomicBoolean closed = new AtomicBoolean();

	private final AtomicInteger dropped = new AtomicInteger();

	private volatile byte[] marker;

	private volatile boolean refusing;

	/**
	 * Starts a proxy on a free loopback port.
	 * @param host the Redis server's host
	 * @param port its port
	 */
	public ReplyDroppingProxy(String host, int port) throws IOException {
		this.host = host;
		this.port = port;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "reply-dropping-proxy");
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/** The port clients connect to. */
	public int port() {
		return this.server.getLocalPort();
	}

	/** Drops the next reply that holds this text, and its connection. */
	public void dropNextReplyHolding(String text) {
		this.marker = text.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Closes every connection accepted from now on at once (Redis looks unreachable), or accepts them again.
	 * @param refusing whether to refuse connections
	 */
	public void refuseConnections(boolean refusing) {
		this.refusing = refusing;
	}

	/** How many replies were dropped. */
	public int dropped() {
		return this.dropped.get();
	}

	private void accept() {
		while (!this.closed.get()) {
			Socket client = null;
			try {
				client = this.server.accept();
				if (this.refusing) {
					closeQuietly(client);
					continue;
				}
				Socket upstream = new Socket(this.host, this.port);
				client.setTcpNoDelay(true);
				upstream.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(upstream);
				pump(client, upstream, false);
				pump(upstream, client, true);
			}
			catch (IOException ex) {
				// closed, or the server went away: the client sees its connection fail
				if (client != null) {
					closeQuietly(client);
				}
			}
		}
	}

	private void pump(Socket from, Socket to, boolean replies) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[64 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int n;
				while ((n = in.read(buffer)) > 0) {
					byte[] armed = this.marker;
					if (replies && armed != null && contains(buffer, n, armed)) {
						this.marker = null;
						this.dropped.incrementAndGet();
						break;
					}
					out.write(buffer, 0, n);
					out.flush();
				}
			}
			catch (SocketException ex) {
				// the other side closed
			}
			catch (IOException ex) {
				// as above
			}
			finally {
				closeQuietly(from);
				closeQuietly(to);
			}
		}, replies ? "proxy-replies" : "proxy-commands");
		thread.setDaemon(true);
		thread.start();
	}

	private static boolean contains(byte[] buffer, int length, byte[] text) {
		outer: for (int i = 0; i + text.length <= length; i++) {
			for (int j = 0; j < text.length; j++) {
				if (buffer[i + j] != text[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	@Override
	public void close() {
		if (this.closed.compareAndSet(false, true)) {
			try {
				this.server.close();
			}
			catch (IOException ex) {
				// closing anyway
			}
			this.sockets.forEach(ReplyDroppingProxy::closeQuietly);
		}
	}

}
