package io.github.delayqueue.faults;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the tally reads duplicates: which a fault explains, and which it must report.
 */
class TallyTests {

	private static final long LEASE = 2_000;

	@Test
	void aHandlerThatBeganBeforeAStallAndRecordedItsStartAfterItIsExplained() {
		// w0-0 began m-1 at about 1 390, was stopped at 1 400 before its handler recorded the start; w1-1 got the
		// message after the lease and ran it at 3 500; w0-0 went on at 3 600 and recorded 3 610
		Tally.Figures figures = Tally.count(Map.of("m-1", 1_000L),
				List.of(new Ledger.Delivery("m-1", 1, 3_500, "w1-1"), new Ledger.Delivery("m-1", 1, 3_610, "w0-0")),
				Set.of("w0-0"), List.of(new Tally.Event(1_400, 3_600, false)), LEASE);
		assertThat(figures.duplicated()).isEqualTo(1);
		assertThat(figures.explained()).isEqualTo(1);
		assertThat(figures.unexplainedSample()).isEmpty();
	}

	@Test
	void aStalledConsumerStartingAMessageWellAfterItWentOnIsReported() {
		// long after its stall, a consumer must have checked its lease: a start then is a duplicate nothing explains
		Tally.Figures figures = Tally.count(Map.of("m-1", 1_000L),
				List.of(new Ledger.Delivery("m-1", 1, 3_500, "w1-1"), new Ledger.Delivery("m-1", 1, 6_000, "w0-0")),
				Set.of("w0-0"), List.of(new Tally.Event(1_400, 3_600, false)), LEASE);
		assertThat(figures.duplicated()).isEqualTo(1);
		assertThat(figures.explained()).isZero();
		assertThat(figures.unexplainedSample()).hasSize(1);
	}

	@Test
	void aDuplicateOfAConsumerThatNeverStalledIsReported() {
		Tally.Figures figures = Tally.count(Map.of("m-1", 1_000L),
				List.of(new Ledger.Delivery("m-1", 1, 3_500, "w1-1"), new Ledger.Delivery("m-1", 1, 3_610, "w2-0")),
				Set.of("w0-0"), List.of(new Tally.Event(1_400, 3_600, false)), LEASE);
		assertThat(figures.explained()).isZero();
	}

	@Test
	void aMessageNotHandledIsLostOnlyIfTheQueueNoLongerHoldsIt() {
		// m-1 handled; m-2 still leased when the suite stopped waiting; m-3 retrying; m-4 a dead letter; m-5 gone
		Map<String, Long> sent = Map.of("m-1#0", 1_000L, "m-2#0", 1_000L, "m-3#0", 1_000L, "m-4#0", 1_000L,
				"m-5#0", 1_000L);
		List<Ledger.Delivery> deliveries = List.of(new Ledger.Delivery("m-1#0", 1, 1_010, "w0-0"));
		assertThat(Tally.unhandled(sent, deliveries)).containsExactlyInAnyOrder("m-2#0", "m-3#0", "m-4#0", "m-5#0");

		Tally.Figures figures = Tally.count(sent, deliveries, Set.of(), List.of(), LEASE,
				Map.of("m-2#0", new QueueClient.Held("IN_FLIGHT", 1), "m-3#0", new QueueClient.Held("RETRYING", 2),
						"m-4#0", new QueueClient.Held("DEAD", 3)));
		assertThat(figures.delivered()).isEqualTo(1);
		assertThat(figures.lost()).isEqualTo(1);
		assertThat(figures.lostSample()).containsExactly("m-5#0");
		assertThat(figures.unfinished()).isEqualTo(2);
		assertThat(figures.unfinishedStates()).containsExactly(Map.entry("IN_FLIGHT", 1), Map.entry("RETRYING", 1));
		assertThat(figures.unfinishedSample()).containsExactly("m-2#0 IN_FLIGHT after 1 attempts, due 1000",
				"m-3#0 RETRYING after 2 attempts, due 1000");
		assertThat(FaultReport.unfinished(figures)).isEqualTo("2 (1 IN_FLIGHT, 1 RETRYING)");
	}

	@Test
	void withoutALookUpEveryMessageNotHandledIsLostAndUnfinishedIsNotKnown() {
		Tally.Figures figures = Tally.count(Map.of("m-1#0", 1_000L, "m-2#0", 1_000L),
				List.of(new Ledger.Delivery("m-1#0", 1, 1_010, "w0-0")), Set.of(), List.of(), LEASE);
		assertThat(figures.lost()).isEqualTo(1);
		assertThat(figures.unfinished()).isNull();
		assertThat(FaultReport.unfinished(figures)).isEqualTo("n/a");
	}

}
