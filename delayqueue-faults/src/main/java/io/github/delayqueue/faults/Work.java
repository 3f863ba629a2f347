package io.github.delayqueue.faults;

/**
 * The payload the suite schedules: which message this is, when it is due, and how its handler behaves.
 *
 * @param key the message's key in the ledger: its queue id and its generation ({@code m-17#0}; an id scheduled again
 * after it was delivered is a new generation)
 * @param due when it is due, epoch milliseconds
 * @param kind {@code normal}, or a poison: {@code throw} (the handler always throws) or {@code crash} (the handler
 * halts its JVM)
 */
public record Work(String key, long due, String kind) {

	static final String NORMAL = "normal";

	static final String THROW = "throw";

	static final String CRASH = "crash";

	/**
	 * The queue id in a key.
	 * @param key a key such as {@code m-17#0}
	 * @return the id, {@code m-17}
	 */
	static String idOf(String key) {
		return key.substring(0, key.indexOf('#'));
	}

	/**
	 * This work as one line of text, for Redisson's string codec.
	 * @return {@code key|due|kind}
	 */
	String toText() {
		return this.key + '|' + this.due + '|' + this.kind;
	}

	/**
	 * Reads {@link #toText()}.
	 * @param text the text
	 * @return the work
	 */
	static Work fromText(String text) {
		String[] parts = text.split("\\|", 3);
		return new Work(parts[0], Long.parseLong(parts[1]), parts[2]);
	}

}
