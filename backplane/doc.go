// Package backplane lets several instances of one MCP server, behind a
// load balancer, share what a client may reach through any of them, over
// NATS (github.com/nats-io/nats.go). The application owns the
// *nats.Conn: it dials, authenticates and closes it; this package only
// uses it.
//
//   - [NewTaskStore] is a taskstore.Store on a JetStream key-value bucket:
//     a task created through one instance is read, updated and cancelled
//     through any other, and compare-and-set on the record's revision
//     keeps two instances from both taking it. It is a
//     taskstore.Watcher, so the instance running a task learns that it
//     was cancelled elsewhere and cancels its handler, and a
//     taskstore.Leaser: each task runner holds a lease ([WithLease],
//     default 10 s), and when an instance dies the others settle its
//     working tasks as after a restart once its lease lapses.
//   - [NewCatalog] replicates run-time catalog changes: every instance
//     defines the same components, a JetStream key-value bucket says which
//     are present, and every instance applies its revisions in order.
//   - [NewClusterView] gathers the supervision trees of every live
//     instance, listing those that do not answer in time as missing.
//   - [NewSessions] relays the requests of an initialize-era session
//     (Mcp-Session-Id) received by any instance to the one that owns
//     it, streaming the answer back in chunks, so those clients need no
//     session affinity either.
//
// Package clustertest, in this module, runs several instances in a test:
// one embedded NATS server, N Runtimes sharing it through Events, each on
// its own listener, behind a round-robin proxy.
//
// The package lives in its own module so that the server core never
// depends on NATS. docs/DEPLOYMENT.md describes a deployment of several
// instances: what they must share and what needs no affinity.
package backplane
