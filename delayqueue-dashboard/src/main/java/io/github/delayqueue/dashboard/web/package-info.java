/**
 * The dashboard on Spring MVC and on Spring WebFlux: the page (server-rendered HTML with a small script and style
 * sheet served beside it) and the JSON API it polls and acts through, one pair of controllers per stack over the
 * same rendering and the same operations.
 */
@NullMarked
package io.github.delayqueue.dashboard.web;

import org.jspecify.annotations.NullMarked;
