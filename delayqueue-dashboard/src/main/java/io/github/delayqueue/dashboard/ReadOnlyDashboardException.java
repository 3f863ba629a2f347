package io.github.delayqueue.dashboard;

/**
 * Thrown when the dashboard is asked to change data while its writes are closed (the default).
 *
 * @since 1.0.0
 */
public class ReadOnlyDashboardException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception, saying how to open writes.
	 */
	public ReadOnlyDashboardException() {
		super("The delayqueue dashboard is read-only: replay, purge, pause, resume and limits follow "
				+ "management.endpoint.delayqueue.access (set it to unrestricted, or delayqueue.dashboard.access="
				+ "unrestricted) and the application's own security");
	}

}
