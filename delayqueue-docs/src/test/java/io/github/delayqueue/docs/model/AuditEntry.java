package io.github.delayqueue.docs.model;

/** A payload of the documentation's audit-log messages. */
public record AuditEntry(String who, String what) {
}
