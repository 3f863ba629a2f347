package io.github.delayqueue.docs.recurring;

import java.time.Duration;
import java.time.ZoneId;

import io.github.delayqueue.docs.model.Cleanup;
import io.github.delayqueue.recurring.RecurringSchedule;
import io.github.delayqueue.recurring.RecurringSchedules;

/** The recurring schedules page's snippets. */
class RecurringSnippets {

	private final RecurringSchedules schedules;

	RecurringSnippets(RecurringSchedules schedules) {
		this.schedules = schedules;
	}

	void inCode() {
		// tag::define[]
		schedules.define(RecurringSchedule.builder("nightly-cleanup", "cleanup")
			.cron("0 30 1 * * *").zone(ZoneId.of("Europe/Berlin")).payload(new Cleanup(Duration.ofDays(30))).build());
		schedules.pause("nightly-cleanup");  schedules.resume("nightly-cleanup");  schedules.remove("nightly-cleanup");
		schedules.list();                    // each with its last and next tick (also in GET /actuator/delayqueue)
		// end::define[]
	}

}
