package io.github.delayqueue.faults;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the timeline buckets a run: deliveries, backlog and JVMs per bucket, and the latest messages.
 */
class TimelineTests {

	private static final long T0 = 1_000_000;

	@Test
	void bucketsDeliveriesJvmsAndTheLatestMessages() {
		// m-1 due at 100, handled at 120; m-2 due at 200, its JVM w0-0 died at 300 (w0-1 up at 2 300), redelivered by
		// w1-0 at 3 400, at attempt 2; m-3 due at 600, handled at 650 and again (a duplicate) at 700
		Map<String, Long> sent = Map.of("m-1#0", T0 + 100, "m-2#0", T0 + 200, "m-3#0", T0 + 600);
		List<Ledger.Delivery> deliveries = List.of(new Ledger.Delivery("m-1#0", 1, T0 + 120, "w1-0", false),
				new Ledger.Delivery("m-2#0", 2, T0 + 3_400, "w1-0", true),
				new Ledger.Delivery("m-3#0", 1, T0 + 650, "w1-0", false),
				new Ledger.Delivery("m-3#0", 1, T0 + 700, "w0-1", false),
				new Ledger.Delivery("poison-crash-9#0", 1, T0 + 250, "w0-0", false));
		List<Timeline.Jvm> jvms = List.of(new Timeline.Jvm("w0-0", T0 - 5_000, T0 - 4_000, T0 + 300L, true),
				new Timeline.Jvm("w1-0", T0 - 5_000, T0 - 4_000, null, false),
				new Timeline.Jvm("w0-1", T0 + 350, T0 + 2_300L, null, false));
		List<Timeline.Sample> samples = List.of(new Timeline.Sample(T0 + 310, 3, 1, true),
				new Timeline.Sample(T0 + 410, 1, 5, false));

		Timeline timeline = Timeline.of(T0, sent, deliveries, jvms, samples);

		assertThat(timeline.buckets()).hasSize(7);
		Timeline.Bucket first = timeline.buckets().get(0);
		assertThat(first.started()).isEqualTo(1);
		assertThat(first.maxLatenessMs()).isEqualTo(20);
		assertThat(first.backlog()).isEqualTo(1);
		assertThat(first.died()).containsExactly("w0-0");
		assertThat(first.workersUp()).isEqualTo(1);
		assertThat(first.suspectsMax()).isEqualTo(3);
		assertThat(first.leasedMin()).isEqualTo(1);
		assertThat(first.leasedMax()).isEqualTo(5);
		assertThat(first.chargedSuspectLeased()).isEqualTo(1);
		Timeline.Bucket second = timeline.buckets().get(1);
		assertThat(second.started()).isEqualTo(2);
		assertThat(second.firsts()).isEqualTo(1);
		assertThat(second.maxLatenessMs()).isEqualTo(100);
		assertThat(second.suspectsMax()).isNull();
		assertThat(timeline.buckets().get(4).ready()).containsExactly("w0-1");
		assertThat(timeline.buckets().get(4).workersUp()).isEqualTo(2);
		Timeline.Bucket last = timeline.buckets().get(6);
		assertThat(last.redelivered()).isEqualTo(1);
		assertThat(last.retried()).isEqualTo(1);
		assertThat(last.maxLatenessMs()).isEqualTo(3_200);
		assertThat(timeline.buckets().get(5).backlog()).isEqualTo(1);
		assertThat(last.backlog()).isZero();

		assertThat(timeline.latest()).extracting(Timeline.Late::key).containsExactly("m-2#0", "m-3#0", "m-1#0");
		Timeline.Late latest = timeline.latest().get(0);
		assertThat(latest.latenessMs()).isEqualTo(3_200);
		assertThat(latest.attempt()).isEqualTo(2);
		assertThat(latest.leasedByCrashedJvm()).isTrue();
		assertThat(latest.incarnation()).isEqualTo("w1-0");
		assertThat(latest.deathsWhileWaiting()).containsExactly("w0-0 at 300");
		assertThat(timeline.jvms()).extracting(Timeline.Jvm::readyMs).containsExactly(-4_000L, -4_000L, 2_300L);
	}

}
