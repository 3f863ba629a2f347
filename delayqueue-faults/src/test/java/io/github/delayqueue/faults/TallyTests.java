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

}
