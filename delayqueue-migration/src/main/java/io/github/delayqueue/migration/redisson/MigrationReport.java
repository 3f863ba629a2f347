package io.github.delayqueue.migration.redisson;

/**
 * What one migration run found and did.
 *
 * @param queue the Redisson queue name
 * @param topic the delayqueue topic
 * @param delayed elements found waiting in the delayed queue's sorted set (each keeps its due time)
 * @param due elements found in the destination queue, already due (each is due at once)
 * @param scheduled messages this run stored in the topic
 * @param existing messages whose id the topic held already (an earlier run that stopped before recording them)
 * @param alreadyMigrated elements an earlier run had migrated (in the ledger), not scheduled again
 * @param removed elements this run removed from Redisson's keys (with {@code removeMigrated})
 * @since 1.0.0
 */
public record MigrationReport(String queue, String topic, long delayed, long due, long scheduled, long existing,
		long alreadyMigrated, long removed) {

	/**
	 * Elements found in Redisson's keys, delayed and due.
	 * @return their number
	 */
	public long found() {
		return this.delayed + this.due;
	}

	@Override
	public String toString() {
		return "Redisson queue '" + this.queue + "' -> topic '" + this.topic + "': found " + found() + " ("
				+ this.delayed + " delayed, " + this.due + " due), scheduled " + this.scheduled + ", already in the "
				+ "topic " + this.existing + ", migrated by an earlier run " + this.alreadyMigrated + ", removed from "
				+ "Redisson " + this.removed;
	}

}
