package sse

// The reader: one event at a time, bounded.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// ErrTooLarge reports an event (or one line of it) over the reader's
// bound. The rest of the stream cannot be read reliably after it.
var ErrTooLarge = errors.New("sse: event exceeds the size bound")

// Reader reads events from a stream incrementally, holding at most the
// bound of one event's data. It is used by one goroutine only.
type Reader struct {
	r   *bufio.Reader
	max int

	// Comments makes Next return a block of comment lines (a keepalive)
	// as an Event with Comment set; otherwise comments are skipped.
	Comments bool
	// Strict makes Next fail on a field other than data, event, id and
	// retry, which the format otherwise ignores: for tests that check
	// what a server writes.
	Strict bool
	// TooLarge, when set, is the error Next returns for an event over the
	// bound, in place of ErrTooLarge: the caller's own.
	TooLarge error

	// LastID is the last event id the stream gave (the format keeps it
	// from one event to the next), for resuming with Last-Event-ID.
	LastID string
	// Retry is the last reconnection delay the stream asked for, and
	// RetrySet whether it asked for one.
	Retry    time.Duration
	RetrySet bool
}

// NewReader returns a Reader of r whose events hold at most maxEvent
// bytes of data.
func NewReader(r io.Reader, maxEvent int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 32<<10), max: maxEvent}
}

// Next returns the next event whose data is not empty (or, with
// Comments, the next comment block). It returns io.EOF at the end of the
// stream, and ErrTooLarge for an event over the bound. A stream that ends
// without the blank line after its last event still delivers that event.
//
// An event with empty data carries no message, and Next reads on past
// it, keeping its id in LastID and its retry field in Retry: the HTML
// standard dispatches nothing for an event without data lines, and the
// priming event of a 2025-11-25 stream (an id, a retry field and one
// empty data line, which a browser's EventSource would dispatch with
// empty data) carries no JSON-RPC message.
func (s *Reader) Next() (Event, error) {
	var ev Event
	var data []byte
	hasData, sawComment := false, false
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && len(data) > 0 {
				ev.Data = data
				return ev, nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			switch {
			case len(data) > 0:
				ev.Data = data
				return ev, nil
			case sawComment && s.Comments && !hasData:
				return Event{Comment: true}, nil
			}
			ev, data, hasData, sawComment = Event{}, data[:0], false, false
			continue
		}
		if line[0] == ':' {
			sawComment = true
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			if len(data)+len(value) > s.max {
				return Event{}, s.tooLarge()
			}
			data = append(data, value...)
			hasData = true
		case "event":
			ev.Type = string(value)
		case "id":
			// An id holding NUL is ignored, as the format says.
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
				s.LastID = ev.ID
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
				ev.Retry = time.Duration(ms) * time.Millisecond
				s.Retry, s.RetrySet = ev.Retry, true
			}
		default:
			if s.Strict {
				return Event{}, fmt.Errorf("sse: unexpected line %q", line)
			}
		}
	}
}

func (s *Reader) tooLarge() error {
	if s.TooLarge != nil {
		return s.TooLarge
	}
	return ErrTooLarge
}

// lineSlack is what a line may hold beyond the event bound: its field
// name, the separator and the line ending.
const lineSlack = 64

// line returns one line without its line ending (LF or CRLF), bounded by
// the event bound plus lineSlack.
func (s *Reader) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(line)+len(chunk) > s.max+lineSlack {
			return nil, s.tooLarge()
		}
		switch {
		case err == nil:
			line = append(line, chunk...)
			return bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
		default:
			if errors.Is(err, io.EOF) && len(line)+len(chunk) > 0 {
				return bytes.TrimSuffix(append(line, chunk...), []byte("\r")), nil
			}
			return nil, err
		}
	}
}
