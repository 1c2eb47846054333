package sse

// The writer: events and comments appended to a buffer, for the caller
// to write and flush.

import (
	"bytes"
	"strconv"
)

// AppendEvent appends ev in the text/event-stream format to dst: its
// type, id and retry fields when set, one data line per line of its data,
// and the blank line that ends it.
func AppendEvent(dst []byte, ev Event) []byte {
	if ev.Type != "" {
		dst = append(append(append(dst, "event: "...), ev.Type...), '\n')
	}
	if ev.ID != "" {
		dst = append(append(append(dst, "id: "...), ev.ID...), '\n')
	}
	if ev.Retry > 0 {
		dst = strconv.AppendInt(append(dst, "retry: "...), ev.Retry.Milliseconds(), 10)
		dst = append(dst, '\n')
	}
	data := ev.Data
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		dst = append(append(append(dst, "data: "...), line...), '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(dst, '\n')
}

// AppendComment appends a comment block holding text (one line) to dst:
// a line a client ignores, which keeps a quiet stream from looking dead.
func AppendComment(dst []byte, text string) []byte {
	return append(append(append(dst, ": "...), text...), '\n', '\n')
}
