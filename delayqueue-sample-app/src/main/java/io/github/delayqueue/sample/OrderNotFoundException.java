package io.github.delayqueue.sample;

import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * There is no order with the given id (404).
 */
public class OrderNotFoundException extends ErrorResponseException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates the exception.
	 * @param id the order id
	 */
	public OrderNotFoundException(String id) {
		super(HttpStatus.NOT_FOUND);
		getBody().setTitle("Order not found");
		getBody().setDetail("There is no order " + id);
	}

}
