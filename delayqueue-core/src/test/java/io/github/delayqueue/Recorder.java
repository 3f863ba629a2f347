package io.github.delayqueue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.listener.DelayedMessageHandler;

/** A handler that records what it receives. */
public class Recorder<T> implements DelayedMessageHandler<T> {

	public final List<Received<T>> received = new CopyOnWriteArrayList<>();

	public final Map<String, AtomicInteger> countsById = new ConcurrentHashMap<>();

	@Override
	public void handle(T payload, DeliveredMessage message) throws Exception {
		this.received.add(new Received<>(payload, message, System.currentTimeMillis(), System.nanoTime()));
		this.countsById.computeIfAbsent(message.id(), (id) -> new AtomicInteger()).incrementAndGet();
	}

	public List<String> ids() {
		return this.received.stream().map((r) -> r.message().id()).toList();
	}

	public int count(String id) {
		AtomicInteger count = this.countsById.get(id);
		return (count != null) ? count.get() : 0;
	}

	public record Received<T>(T payload, DeliveredMessage message, long wallMillis, long nanos) {
	}

}
