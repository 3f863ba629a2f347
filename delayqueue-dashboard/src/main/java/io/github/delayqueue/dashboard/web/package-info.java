/**
 * The dashboard on Spring MVC: the page (server-rendered HTML with a small script and style sheet served beside it)
 * and the JSON API it polls and acts through.
 */
@NullMarked
package io.github.delayqueue.dashboard.web;

import org.jspecify.annotations.NullMarked;
