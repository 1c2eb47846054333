// Package testfixture holds this repository's own test fixtures, beside
// the public helpers of package testkit: one message dispatched with no
// transport, the native listener started under a supervisor, a buffer a
// test reads while something writes it, frames of initialize-era clients
// and of a client's answers, raw Streamable HTTP requests and replies
// with every frame schema-checked, initialize-era HTTP sessions, a
// notification recorder for dispatch-level tests, a recording
// instrumentation sink, the scriptable probe tools of the property and
// chaos tests, their seeds, and servers run as subprocesses.
package testfixture
