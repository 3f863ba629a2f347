package io.github.delayqueue.recurring;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;

import static org.assertj.core.api.Assertions.assertThat;

class RecurringRuntimeHintsTests {

	@Test
	void storedDefinitionsCanBeReadAndWrittenAsJsonInANativeImage() {
		RuntimeHints hints = new RuntimeHints();
		new RecurringRuntimeHints().registerHints(hints, getClass().getClassLoader());
		assertThat(RuntimeHintsPredicates.reflection().onType(StoredDefinition.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(hints);
	}

}
