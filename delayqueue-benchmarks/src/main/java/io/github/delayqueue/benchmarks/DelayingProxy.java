package io.github.delayqueue.benchmarks;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on a free loopback port that forwards to a Redis port and delays every chunk it reads by a fixed time
 * in each direction, so that a round trip through it takes twice that much longer. Order is kept and bandwidth is
 * not limited: a reader thread per direction stamps each chunk with the time it arrived and reads on at once; a
 * writer thread per direction writes each chunk when its time comes (a pipeline of many commands arrives one delay
 * later, not one delay per command). Only a benchmark's slow-network row uses it.
 * <p>
 * Its threads run in the benchmark's JVM: {@link #cpuNanos()} says how much CPU they used, so that it can be left
 * out of the client's CPU figure. {@link #close()} closes every socket and ends every thread.
 */
final class DelayingProxy implements AutoCloseable {

	private static final int BUFFER = 64 * 1024;

	private static final long JOIN_MILLIS = 2_000;

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private final int targetPort;

	private final long delayNanos;

	private final ServerSocket server;

	private final Set<Socket> sockets = new HashSet<>();

	private final Set<Thread> threads = new HashSet<>();

	private final AtomicInteger connections = new AtomicInteger();

	private long finishedCpuNanos;

	private volatile boolean closed;

	/**
	 * Starts a proxy to a port on loopback.
	 * @param targetPort the Redis port
	 * @param delayNanos the delay added in each direction
	 */
	DelayingProxy(int targetPort, long delayNanos) {
		if (THREADS.isThreadCpuTimeSupported() && !THREADS.isThreadCpuTimeEnabled()) {
			THREADS.setThreadCpuTimeEnabled(true);
		}
		this.targetPort = targetPort;
		this.delayNanos = delayNanos;
		try {
			this.server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		spawn("proxy-accept", this::accept);
	}

	/**
	 * The port clients connect to instead of Redis's.
	 * @return the port
	 */
	int port() {
		return this.server.getLocalPort();
	}

	/**
	 * How many connections the proxy has accepted so far.
	 * @return the count
	 */
	int connections() {
		return this.connections.get();
	}

	/**
	 * The CPU time the proxy's threads used so far, those that ended included.
	 * @return nanoseconds
	 */
	synchronized long cpuNanos() {
		long total = this.finishedCpuNanos;
		for (Thread thread : this.threads) {
			long cpu = THREADS.getThreadCpuTime(thread.getId());
			total += Math.max(cpu, 0);
		}
		return total;
	}

	private void accept() {
		while (!this.closed) {
			Socket client = null;
			Socket upstream = null;
			try {
				client = this.server.accept();
				upstream = new Socket();
				upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), this.targetPort), 5_000);
				new Connection(client, upstream).start(this.connections.incrementAndGet());
			}
			catch (IOException ex) {
				closeQuietly(client);
				closeQuietly(upstream);
				if (!this.closed) {
					Benchmarks.log("proxy: a connection failed: " + ex);
				}
			}
		}
	}

	private synchronized void spawn(String name, Runnable task) {
		Thread thread = new Thread(() -> {
			try {
				task.run();
			}
			finally {
				ended(Thread.currentThread());
			}
		}, name);
		thread.setDaemon(true);
		this.threads.add(thread);
		thread.start();
	}

	private synchronized void ended(Thread thread) {
		this.finishedCpuNanos += Math.max(THREADS.getCurrentThreadCpuTime(), 0);
		this.threads.remove(thread);
	}

	private synchronized boolean register(Socket socket) {
		if (this.closed) {
			return false;
		}
		this.sockets.add(socket);
		return true;
	}

	private synchronized void unregister(Socket socket) {
		this.sockets.remove(socket);
	}

	/**
	 * Closes the listening socket and every connection, and waits (bounded) for every thread to end.
	 */
	@Override
	public void close() {
		Set<Thread> running;
		synchronized (this) {
			this.closed = true;
			this.sockets.forEach(DelayingProxy::closeQuietly);
			this.sockets.clear();
			running = new HashSet<>(this.threads);
		}
		closeQuietly(this.server);
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(JOIN_MILLIS);
		for (Thread thread : running) {
			thread.interrupt();
		}
		for (Thread thread : running) {
			try {
				thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		long alive = running.stream().filter(Thread::isAlive).count();
		if (alive > 0) {
			Benchmarks.log("proxy: " + alive + " thread(s) still running after close");
		}
	}

	private static void closeQuietly(AutoCloseable closeable) {
		if (closeable != null) {
			try {
				closeable.close();
			}
			catch (Exception ex) {
				// closing anyway
			}
		}
	}

	/**
	 * The median time of a {@code PING} on a connection of its own, after a few unmeasured ones.
	 * @param port the port: the proxy's or Redis's
	 * @param samples how many to time
	 * @return the median in microseconds
	 */
	static long medianPingMicros(int port, int samples) {
		byte[] ping = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
		byte[] reply = new byte[7];
		long[] micros = new long[samples];
		try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
			socket.setTcpNoDelay(true);
			socket.setSoTimeout(5_000);
			OutputStream out = socket.getOutputStream();
			InputStream in = socket.getInputStream();
			for (int i = -5; i < samples; i++) {
				long start = System.nanoTime();
				out.write(ping);
				out.flush();
				int read = 0;
				while (read < reply.length) {
					int n = in.read(reply, read, reply.length - read);
					if (n < 0) {
						throw new IOException("Connection closed during PING");
					}
					read += n;
				}
				if (i >= 0) {
					micros[i] = (System.nanoTime() - start) / 1000;
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Arrays.sort(micros);
		return micros[samples / 2];
	}

	/** One client connection and its connection to Redis: two directions, each a reader and a writer. */
	private final class Connection {

		private final Socket client;

		private final Socket upstream;

		private final AtomicInteger directionsLeft = new AtomicInteger(2);

		Connection(Socket client, Socket upstream) {
			this.client = client;
			this.upstream = upstream;
		}

		void start(int number) throws IOException {
			this.client.setTcpNoDelay(true);
			this.upstream.setTcpNoDelay(true);
			if (!register(this.client) || !register(this.upstream)) {
				closeBoth();
				return;
			}
			direction("proxy-" + number + "-up", this.client, this.upstream);
			direction("proxy-" + number + "-down", this.upstream, this.client);
		}

		private void direction(String name, Socket from, Socket to) throws IOException {
			BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
			InputStream in = from.getInputStream();
			OutputStream out = new BufferedOutputStream(to.getOutputStream(), BUFFER);
			spawn(name + "-read", () -> read(in, chunks));
			spawn(name + "-write", () -> write(chunks, out, to));
		}

		private void read(InputStream in, BlockingQueue<Chunk> chunks) {
			byte[] buffer = new byte[BUFFER];
			try {
				int n;
				while ((n = in.read(buffer)) >= 0) {
					chunks.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + DelayingProxy.this.delayNanos));
				}
			}
			catch (IOException ex) {
				// closed: the end of this direction
			}
			chunks.add(new Chunk(null, System.nanoTime() + DelayingProxy.this.delayNanos));
		}

		private void write(BlockingQueue<Chunk> chunks, OutputStream out, Socket to) {
			try {
				while (true) {
					Chunk chunk = chunks.take();
					long wait;
					while ((wait = chunk.dueNanos() - System.nanoTime()) > 0) {
						LockSupport.parkNanos(wait);
						if (Thread.interrupted()) {
							throw new InterruptedException();
						}
					}
					if (chunk.data() == null) {
						out.flush();
						to.shutdownOutput();
						break;
					}
					out.write(chunk.data());
					Chunk next = chunks.peek();
					if (next == null || next.dueNanos() > System.nanoTime()) {
						out.flush();
					}
				}
			}
			catch (InterruptedException ex) {
				closeBoth();
				return;
			}
			catch (IOException ex) {
				// the other side is gone: so is this connection
				closeBoth();
				return;
			}
			if (this.directionsLeft.decrementAndGet() == 0) {
				closeBoth();
			}
		}

		private void closeBoth() {
			closeQuietly(this.client);
			closeQuietly(this.upstream);
			unregister(this.client);
			unregister(this.upstream);
		}

	}

	/**
	 * Bytes read from one side, and when they are to be written to the other.
	 *
	 * @param data the bytes, or {@code null} for the end of the stream
	 * @param dueNanos the {@link System#nanoTime()} to write them at
	 */
	private record Chunk(byte[] data, long dueNanos) {
	}

}
