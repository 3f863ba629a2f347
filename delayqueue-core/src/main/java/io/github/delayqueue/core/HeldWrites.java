package io.github.delayqueue.core;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.transaction.support.TransactionSynchronization;

/**
 * One transaction's writes, and the synchronization that runs them when it has committed. They run on
 * completion, not in {@code afterCommit}: where Spring only takes part in a JTA transaction, its
 * {@code afterCommit} comes before the real commit, while completion comes after it; and a write made from
 * another synchronization's {@code afterCommit} joins the list in time. A savepoint rolled back to drops the
 * writes made after it.
 */
final class HeldWrites implements TransactionSynchronization {

	/** The {@code TransactionalWrites} whose list this is, among the transaction's synchronizations. */
	private final Object owner;

	private final List<HeldWrite> writes = new ArrayList<>();

	/** List sizes at the savepoints set while this list existed. */
	private final Map<Object, Integer> savepoints = new IdentityHashMap<>();

	/** Writes up to this index may not absorb later ones (a savepoint lies between). */
	private int sealed;

	private boolean ran;

	HeldWrites(Object owner) {
		this.owner = owner;
	}

	Object owner() {
		return this.owner;
	}

	synchronized void add(HeldWrite write) {
		if (this.ran) {
			write.run();
			return;
		}
		HeldWrite last = (this.writes.size() > this.sealed) ? this.writes.get(this.writes.size() - 1) : null;
		if (last instanceof HeldWrite.Schedules schedules && write instanceof HeldWrite.Schedules next) {
			schedules.absorb(next);
		}
		else {
			this.writes.add(write);
		}
	}

	@Override
	public synchronized void savepoint(Object savepoint) {
		this.savepoints.put(savepoint, this.writes.size());
		this.sealed = this.writes.size();
	}

	@Override
	public synchronized void savepointRollback(Object savepoint) {
		// a savepoint set before this list existed: everything in it came after
		int keep = this.savepoints.getOrDefault(savepoint, 0);
		List<HeldWrite> dropped = new ArrayList<>(this.writes.subList(keep, this.writes.size()));
		this.writes.subList(keep, this.writes.size()).clear();
		this.savepoints.values().removeIf((size) -> size > keep);
		this.sealed = Math.min(this.sealed, keep);
		dropped.forEach(HeldWrite::rolledBack);
	}

	@Override
	public void afterCompletion(int status) {
		List<HeldWrite> toRun;
		synchronized (this) {
			if (this.ran) {
				return;
			}
			this.ran = true;
			toRun = new ArrayList<>(this.writes);
			this.writes.clear();
		}
		if (status == STATUS_COMMITTED) {
			runAll(toRun);
		}
		else if (status == STATUS_ROLLED_BACK) {
			toRun.forEach(HeldWrite::rolledBack);
		}
		else {
			RuntimeException unknown = new IllegalStateException(
					"The transaction ended in an unknown state (committed or not): its queue changes were not made");
			toRun.forEach((write) -> write.unknown(unknown));
		}
	}

	private void runAll(List<HeldWrite> toRun) {
		Error error = null;
		for (HeldWrite write : toRun) {
			try {
				write.run();
			}
			catch (Error ex) {
				// every write still gets its turn; the first error goes on once all ran
				error = (error != null) ? error : ex;
			}
		}
		if (error != null) {
			throw error;
		}
	}

}
