// Package sse writes server-sent events (the WHATWG HTML event stream
// format) for the transports: one event per JSON-RPC frame, with an
// optional event id and reconnection delay, and comments for keepalives.
package sse

import (
	"strconv"
	"time"
)

// Event is one server-sent event.
type Event struct {
	// ID is the event's id ("" for none): a client that reconnects names
	// the last one it received in Last-Event-ID.
	ID string
	// Retry is the reconnection delay to announce (0 for none), written
	// in whole milliseconds.
	Retry time.Duration
	// Data is the event's data. It must not contain a newline (JSON-RPC
	// frames are compact); empty data is written as an empty data field,
	// as the priming event of SEP-1699 is.
	Data []byte
}

// Append appends the event's wire form, ending with the blank line that
// dispatches it, to b.
func (e Event) Append(b []byte) []byte {
	if e.ID != "" {
		b = append(b, "id: "...)
		b = append(b, e.ID...)
		b = append(b, '\n')
	}
	if e.Retry > 0 {
		b = append(b, "retry: "...)
		b = strconv.AppendInt(b, e.Retry.Milliseconds(), 10)
		b = append(b, '\n')
	}
	if len(e.Data) == 0 {
		b = append(b, "data:"...)
	} else {
		b = append(b, "data: "...)
		b = append(b, e.Data...)
	}
	return append(b, '\n', '\n')
}

// Bytes is the event's wire form.
func (e Event) Bytes() []byte { return e.Append(make([]byte, 0, len(e.Data)+len(e.ID)+24)) }

// Comment is a comment line (": text"), which clients ignore; a server
// sends one to keep a quiet stream's connection alive.
func Comment(text string) []byte { return []byte(": " + text + "\n\n") }
