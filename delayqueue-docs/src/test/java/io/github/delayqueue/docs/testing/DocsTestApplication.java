package io.github.delayqueue.docs.testing;

import org.springframework.boot.SpringBootConfiguration;

/** What the testing page's test slices find as the application (component scanning finds the rest). */
@SpringBootConfiguration
class DocsTestApplication {

}
