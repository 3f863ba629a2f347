package io.github.delayqueue.test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;

import io.github.delayqueue.support.DelayQueueMonitor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

class ListenerRecorderTests {

	@Test
	void theRecordingMonitorPassesOnEveryCallbackOfTheMonitorItReplaces() {
		// a callback added to DelayQueueMonitor and not passed on would silently stop the application's metrics
		Arrays.stream(DelayQueueMonitor.class.getDeclaredMethods())
			.filter((method) -> !Modifier.isStatic(method.getModifiers()) && !method.isSynthetic())
			.forEach((method) -> assertThatNoException().as(method.toString())
				.isThrownBy(() -> ListenerRecorder.RecordingMonitor.class.getDeclaredMethod(method.getName(),
						method.getParameterTypes())));
		assertThat(DelayQueueMonitor.class.getDeclaredMethods()).extracting(Method::getName).contains("handled");
	}

	@Test
	void aNewRecorderHasRecordedNothing() {
		ListenerRecorder recorder = new ListenerRecorder();
		assertThat(recorder.received()).isEmpty();
		assertThat(recorder.received("any")).isEmpty();
		assertThat(recorder.unsettled("any")).isEmpty();
	}

}
