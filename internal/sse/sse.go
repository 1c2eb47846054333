// Package sse reads and writes server-sent events, the text/event-stream
// format (HTML Living Standard, section 9.2) that Streamable HTTP carries
// its streams in. It is the one implementation the transport, the client,
// the test kit and the conformance bridge share.
//
// It keeps what MCP uses: an event's type, its data lines and its id, the
// stream's reconnection delay (retry), and comments (keepalives). It does
// no I/O of its own beyond reading the io.Reader it is given, never
// reconnects, and bounds what one event may hold.
package sse

import "time"

// Event is one server-sent event.
type Event struct {
	// Type is the event's type (its "event" field); "" means "message".
	Type string
	// Data is the event's data: its "data" lines joined with "\n".
	Data []byte
	// ID is the event's id (its "id" field), "" when it has none. A
	// client sends the last one it saw as Last-Event-ID when it resumes
	// a stream.
	ID string
	// Retry, when positive, is the reconnection delay the server asks
	// for (the "retry" field), in whole milliseconds on the wire.
	Retry time.Duration
	// Comment is set, with nothing else, for a block of comment lines
	// (keepalives), which a Reader returns only when its Comments field
	// asks for them.
	Comment bool
}
