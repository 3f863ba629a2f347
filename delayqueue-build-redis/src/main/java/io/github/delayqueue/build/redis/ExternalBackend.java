package io.github.delayqueue.build.redis;

import java.net.URI;

/** A server the test did not start, named by {@link TestRedis#URL_VARIABLE}. */
final class ExternalBackend implements Backend {

	private final String host;

	private final int port;

	private final String password;

	private final int database;

	private ExternalBackend(String host, int port, String password, int database) {
		this.host = host;
		this.port = port;
		this.password = password;
		this.database = database;
	}

	static ExternalBackend parse(URI uri) {
		if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
			throw new IllegalArgumentException(TestRedis.URL_VARIABLE
					+ " must look like redis://[:password@]host:port[/database], but was " + uri);
		}
		String password = null;
		if (uri.getUserInfo() != null) {
			String info = uri.getUserInfo();
			password = info.substring(info.indexOf(':') + 1);
		}
		int database = 0;
		String path = uri.getPath();
		if (path != null && path.length() > 1) {
			database = Integer.parseInt(path.substring(1));
		}
		return new ExternalBackend(uri.getHost(), (uri.getPort() != -1) ? uri.getPort() : 6379, password, database);
	}

	@Override
	public TestRedis.Kind kind() {
		return TestRedis.Kind.EXTERNAL;
	}

	@Override
	public String host() {
		return this.host;
	}

	@Override
	public int port() {
		return this.port;
	}

	@Override
	public String password() {
		return this.password;
	}

	@Override
	public int database() {
		return this.database;
	}

	@Override
	public void start() {
	}

	@Override
	public void stop() {
		throw new UnsupportedOperationException();
	}

	@Override
	public void kill() {
		throw new UnsupportedOperationException();
	}

	@Override
	public void close() {
	}

}
