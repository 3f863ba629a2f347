package io.github.delayqueue.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Finds the {@code redis-server} binary to run: the one {@code org.signal:embedded-redis} ships for this platform
 * (Redis 7.0.15 for Linux and macOS), extracted once per JVM, else {@code redis-server} from the {@code PATH}.
 */
final class RedisBinary {

	private static final String EMBEDDED_VERSION = "7.0.15";

	private static volatile Path extractedBinary;

	private RedisBinary() {
	}

	/**
	 * The binary to run: the one {@code org.signal:embedded-redis} ships for this platform, extracted once per
	 * JVM, else {@code redis-server} from the {@code PATH}.
	 * @return the path of the binary
	 * @throws IllegalStateException if there is none
	 */
	static Path find() {
		Path embedded = embeddedBinary();
		if (embedded != null) {
			return embedded;
		}
		String path = System.getenv("PATH");
		if (path != null) {
			for (String dir : path.split(File.pathSeparator)) {
				Path candidate = Path.of(dir, "redis-server");
				if (Files.isExecutable(candidate)) {
					return candidate;
				}
			}
		}
		throw new IllegalStateException("No redis-server: org.signal:embedded-redis ships none for "
				+ System.getProperty("os.name") + "/" + System.getProperty("os.arch")
				+ " and there is none on the PATH");
	}

	private static synchronized Path embeddedBinary() {
		if (extractedBinary != null) {
			return extractedBinary;
		}
		String resource = "redis-server-" + EMBEDDED_VERSION + "-" + platform();
		try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				return null;
			}
			Path target = Files.createTempFile("redis-server-", "");
			Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
			Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
			target.toFile().deleteOnExit();
			extractedBinary = target;
			return target;
		}
		catch (IOException | UnsupportedOperationException ex) {
			return null;
		}
	}

	private static String platform() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		String osName = os.contains("mac") ? "darwin" : os.contains("linux") ? "linux" : os;
		String archName = switch (arch) {
			case "amd64", "x86_64" -> "amd64";
			case "aarch64", "arm64" -> "arm64";
			case "x86", "i386", "i686" -> "386";
			default -> arch;
		};
		return osName + "-" + archName;
	}

}
