package io.github.delayqueue.dashboard.webflux;

import io.github.delayqueue.dashboard.webflux.ReactiveOrders.Order;
import io.github.delayqueue.dashboard.webflux.ReactiveOrders.OrderRefusedException;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/** The orders over HTTP, on WebFlux: nothing here blocks an event-loop thread. */
@RestController
class OrdersController {

	private final ReactiveOrders orders;

	OrdersController(ReactiveOrders orders) {
		this.orders = orders;
	}

	@PostMapping("/orders/{id}")
	@ResponseStatus(HttpStatus.CREATED)
	Mono<Order> create(@PathVariable String id, @RequestParam(defaultValue = "false") boolean refuse) {
		return this.orders.create(id, refuse).onErrorMap(OrderRefusedException.class, OrdersController::conflict);
	}

	@PostMapping("/orders/{id}/payment")
	Mono<Order> pay(@PathVariable String id) {
		return this.orders.pay(id).onErrorMap(OrderRefusedException.class, OrdersController::conflict);
	}

	@GetMapping("/orders/{id}")
	Mono<Order> find(@PathVariable String id) {
		return this.orders.find(id).switchIfEmpty(Mono.error(new ResponseStatusException(HttpStatus.NOT_FOUND)));
	}

	private static ResponseStatusException conflict(Throwable ex) {
		return new ResponseStatusException(HttpStatus.CONFLICT, ex.getMessage(), ex);
	}

}
