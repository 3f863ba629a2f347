package io.github.delayqueue.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Three consumers whose clocks disagree: one on the machine's clock, one five minutes ahead and one five minutes
 * behind (libfaketime, preloaded into the worker JVM). Due times are decided on the Redis server's clock, so the
 * skew must change nothing.
 */
final class SkewedClocks implements Fault {

	private static final List<Path> LIBRARIES = List.of(
			Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"),
			Path.of("/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"), Path.of("/usr/lib/faketime/libfaketime.so.1"),
			Path.of("/usr/lib64/faketime/libfaketime.so.1"), Path.of("/usr/local/lib/faketime/libfaketime.so.1"));

	@Override
	public String name() {
		return "skewed application clocks";
	}

	@Override
	public String how(Sizes sizes) {
		return "three consumers: one on the real clock, one 5 min ahead, one 5 min behind (libfaketime), for "
				+ sizes.skewedRun().toSeconds() + " s";
	}

	@Override
	public Rig.Setup setup(Sizes sizes, boolean redisson) {
		Path library = library();
		return new Rig.Setup(redisson, "always", List.of(Map.of(), skewed(library, "+5m"), skewed(library, "-5m")));
	}

	private static Map<String, String> skewed(@Nullable Path library, String offset) {
		if (library == null) {
			throw new IllegalStateException(new SkewedClocks().unavailable());
		}
		// the wall clock only: the JVM's monotonic and CPU clocks must stay true, or its timed waits spin
		return Map.of("LD_PRELOAD", library.toString(), "FAKETIME", offset, "FAKETIME_DONT_FAKE_MONOTONIC", "1",
				"FAKETIME_FORCE_MONOTONIC_FIX", "0");
	}

	private static @Nullable Path library() {
		return LIBRARIES.stream().filter(Files::isReadable).findFirst().orElse(null);
	}

	@Override
	public @Nullable String unavailable() {
		return (library() != null) ? null : "no libfaketime: install the Debian package faketime";
	}

	@Override
	public void inject(Rig rig) {
		long start = System.currentTimeMillis();
		Rig.sleep(rig.sizes().skewedRun());
		rig.event(start, System.currentTimeMillis(), false);
	}

}
