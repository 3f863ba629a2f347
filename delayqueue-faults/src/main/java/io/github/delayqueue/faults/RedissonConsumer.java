package io.github.delayqueue.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * A worker consuming Redisson's {@code RDelayedQueue} as its documentation shows: threads polling the blocking queue
 * behind it. A message is taken off the queue by the poll, so what a JVM had polled and not yet handled when it died
 * is gone; that is the behaviour the suite shows beside ours.
 */
@SuppressWarnings("deprecation")
final class RedissonConsumer implements AutoCloseable {

	static final String QUEUE = "faults";

	private final RedissonClient client;

	private final RDelayedQueue<String> transfer;

	private final List<Thread> pollers = new ArrayList<>();

	private volatile boolean running = true;

	RedissonConsumer(Worker.Settings settings, Ledger.Writer ledger) {
		this.client = client(settings.port(), settings.timeoutMillis());
		RBlockingQueue<String> queue = this.client.getBlockingQueue(QUEUE, StringCodec.INSTANCE);
		// the delayed queue moves due messages to the blocking queue while some client holds it
		this.transfer = this.client.getDelayedQueue(queue);
		for (int i = 0; i < settings.concurrency(); i++) {
			Thread poller = new Thread(() -> {
				while (this.running) {
					try {
						String text = queue.poll(1, TimeUnit.SECONDS);
						if (text != null) {
							Work work = Work.fromText(text);
							long startedAt = System.currentTimeMillis();
							Thread.sleep(settings.handlerMillis());
							// Redisson knows no attempts nor redeliveries: each delivery is recorded as the first
							ledger.record(work.key(), 1, startedAt, false);
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
						return;
					}
					catch (RuntimeException ex) {
						// Redis unreachable: poll again
					}
				}
			}, "redisson-consumer-" + i);
			poller.start();
			this.pollers.add(poller);
		}
	}

	static RedissonClient client(int port, long timeoutMillis) {
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setTimeout((int) timeoutMillis);
		return Redisson.create(config);
	}

	@Override
	public void close() throws InterruptedException {
		this.running = false;
		for (Thread poller : this.pollers) {
			poller.join(5_000);
		}
		this.transfer.destroy();
		this.client.shutdown();
	}

}
