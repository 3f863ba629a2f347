package io.github.delayqueue.sample;

import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * The order was cancelled because it was not paid in time, so it cannot be paid now (409).
 */
public class OrderCancelledException extends ErrorResponseException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param id the order id
	 */
	public OrderCancelledException(String id) {
		super(HttpStatus.CONFLICT);
		getBody().setTitle("Order cancelled");
		getBody().setDetail("Order " + id + " was cancelled because it was not paid in time");
	}

}
