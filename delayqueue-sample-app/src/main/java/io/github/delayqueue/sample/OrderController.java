package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.net.URI;
import java.util.List;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The orders API: create, pay, show and list orders. Errors are RFC 9457 problem details.
 */
@RestController
@RequestMapping("/orders")
public class OrderController {

	private final OrderService service;

	OrderController(OrderService service) {
		this.service = service;
	}

	@PostMapping
	ResponseEntity<Order> create(@Valid @RequestBody NewOrder request) {
		Order order = this.service.create(request.customer().trim(), request.amount());
		return ResponseEntity.created(URI.create("/orders/" + order.id())).body(order);
	}

	@PostMapping("/{id}/pay")
	Order pay(@PathVariable String id) {
		return this.service.pay(id);
	}

	@GetMapping("/{id}")
	Order get(@PathVariable String id) {
		return this.service.get(id);
	}

	@GetMapping
	List<Order> recent(@RequestParam(defaultValue = "20") @Min(1) @Max(100) int limit) {
		return this.service.recent(limit);
	}

	/**
	 * The body of {@code POST /orders}.
	 *
	 * @param customer who orders
	 * @param amount how much is to be paid, positive, with at most two decimals
	 */
	record NewOrder(@NotBlank @Size(max = 100) String customer,
			@NotNull @DecimalMin(value = "0.01") @Digits(integer = 12, fraction = 2) BigDecimal amount) {
	}

}
