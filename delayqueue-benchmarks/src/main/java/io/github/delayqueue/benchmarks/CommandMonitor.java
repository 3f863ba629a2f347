package io.github.delayqueue.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A {@code MONITOR} connection that counts, per command, how often a client sent it and how often a script ran
 * it.
 */
final class CommandMonitor {

	private static final long STOP_SECONDS = 30;

	private final Socket socket;

	private final int port;

	private final String marker = "costs-monitor-end-" + System.nanoTime();

	private final Map<String, long[]> seen = new ConcurrentHashMap<>();

	private final CountDownLatch markerSeen = new CountDownLatch(1);

	private final Thread reader;

	CommandMonitor(int port) {
		this.port = port;
		try {
			this.socket = new Socket(InetAddress.getLoopbackAddress(), port);
			this.socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			this.socket.getOutputStream().flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(this.socket.getInputStream(), StandardCharsets.ISO_8859_1), 1 << 16);
			String first = in.readLine();
			if (!"+OK".equals(first)) {
				this.socket.close();
				throw new IllegalStateException("MONITOR answered " + first);
			}
			this.reader = new Thread(() -> read(in), "costs-monitor");
			this.reader.setDaemon(true);
			this.reader.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void read(BufferedReader in) {
		try {
			String line;
			while ((line = in.readLine()) != null) {
				count(line);
			}
		}
		catch (IOException ex) {
			// closed by stop()
		}
	}

	/** Counts a line such as {@code +1795553614.320837 [0 lua] "set" "a" "1"}. */
	private void count(String line) {
		int open = line.indexOf('[');
		int close = line.indexOf(']', open + 1);
		int nameStart = line.indexOf('"', close + 1) + 1;
		int nameEnd = line.indexOf('"', nameStart);
		if (open < 0 || close < 0 || nameStart <= 0 || nameEnd < 0) {
			return;
		}
		String name = line.substring(nameStart, nameEnd).toLowerCase(Locale.ROOT);
		if (name.equals("echo") && line.contains(this.marker)) {
			this.markerSeen.countDown();
			return;
		}
		boolean script = line.substring(open + 1, close).endsWith(" lua");
		this.seen.computeIfAbsent(name, (key) -> new long[2])[script ? 1 : 0]++;
	}

	/**
	 * Sends a marker, waits (bounded) until the monitor has read up to it, and closes.
	 * @return per command: {sent by clients, run by scripts}
	 */
	Map<String, long[]> stop() {
		try (Socket echo = new Socket(InetAddress.getLoopbackAddress(), this.port)) {
			OutputStream out = echo.getOutputStream();
			out.write(("ECHO " + this.marker + "\r\n").getBytes(StandardCharsets.US_ASCII));
			out.flush();
			echo.getInputStream().read(new byte[64]);
			if (!this.markerSeen.await(STOP_SECONDS, TimeUnit.SECONDS)) {
				Benchmarks.log("MONITOR did not catch up within " + STOP_SECONDS + " s: commands may be missing");
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			try {
				this.socket.close();
				this.reader.join(5_000);
			}
			catch (IOException ex) {
				// closing anyway
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
		return new LinkedHashMap<>(this.seen);
	}

}
