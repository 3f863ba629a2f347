package io.github.delayqueue.aot;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What a GraalVM native image of an application with delayqueue needs at run time that static analysis cannot see:
 * the Lua scripts, read as class-path resources when the store starts. Listener methods and their payload types are
 * registered per application by {@link DelayedListenerBeanRegistrationAotProcessor}; the recurring schedules' stored
 * definitions are read field by field and need no reflection.
 *
 * @since 1.0.0
 */
public class DelayQueueRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern("io/github/delayqueue/redis/*.lua");
	}

}
