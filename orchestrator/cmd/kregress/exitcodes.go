package main

// exitUnjudged: with --fail-on-regression (and always for nightly), no
// regression was found but a primary metric could not be judged: its
// samples (ok cells) were too few to reach alpha in its family. It is
// not a pass.
const exitUnjudged = 9
