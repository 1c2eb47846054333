// Package actors is snodo's actor runtime: every connection, request and
// subscription is a protoactor-go actor under one supervisor per server,
// a writer actor per connection serializes output, and cancellation and
// EOF drain travel as messages. It also holds the Executor, which bounds
// how much application work runs at once.
//
// protoactor-go stays behind this package: nothing else in snodo imports
// it. The package follows the rules measured for this protoactor-go
// version: one ActorSystem per server; the supervisor's strategy stops a
// failing child instead of restarting it; children report and parents stop
// them; no futures, receive timeouts, bounded mailboxes or stash; timers
// and owned goroutines talk to actors only by sending messages, and those
// messages skip dead-letter logging because they may legitimately arrive
// after a stop; logs go to the application's slog handler, never stdout.
package actors
