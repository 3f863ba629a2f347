package io.github.delayqueue.listener;

/**
 * What one partition's consumer is made of, below its handler threads: the leases it holds, the messages waiting in
 * memory, the acknowledgements waiting for a claim, and the claim loop that carries them.
 *
 * @param leases the leases the partition holds, extended until they end
 * @param batch the leased messages waiting for a handler thread
 * @param acknowledger the acknowledgements waiting for the next claim
 * @param claims the partition's claims
 */
record PartitionParts(LeaseKeeper leases, LocalBatch batch, Acknowledger acknowledger, ClaimLoop claims) {
}
