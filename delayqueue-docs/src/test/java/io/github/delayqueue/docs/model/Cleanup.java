package io.github.delayqueue.docs.model;

import java.time.Duration;

/** The payload of the documentation's recurring clean-up. */
public record Cleanup(Duration olderThan) {
}
