package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// sseReader reads Server-Sent Events incrementally, holding at most
// maxEvent bytes of one event's data. It keeps what MCP uses: the event
// type and the data lines, and the last id and retry delay for resuming;
// comments (keep-alives) are skipped.
type sseReader struct {
	r        *bufio.Reader
	maxEvent int
	// lastID is the last event id seen and retry the last reconnection
	// delay the server asked for, for resuming a stream (initialize era).
	lastID   string
	retry    time.Duration
	retrySet bool
}

func newSSEReader(r io.Reader, maxEvent int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10), maxEvent: maxEvent}
}

// next returns the next event that has data. It returns io.EOF at the end
// of the stream and ErrFrameTooLarge for an event over the bound.
func (s *sseReader) next() (event string, data []byte, err error) {
	var buf []byte
	hasData := false
	for {
		line, err := s.line()
		if err != nil {
			if errors.Is(err, io.EOF) && hasData {
				// A stream that ends without the blank line still
				// delivers its last event.
				return event, buf, nil
			}
			return "", nil, err
		}
		if len(line) == 0 {
			if hasData {
				return event, buf, nil
			}
			event = ""
			continue
		}
		if line[0] == ':' {
			continue // a comment: keep-alive
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
				buf = append(buf, '\n')
			}
			if len(buf)+len(value) > s.maxEvent {
				return "", nil, ErrFrameTooLarge
			}
			buf = append(buf, value...)
			hasData = true
		case "event":
			event = string(value)
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				s.lastID = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil {
				s.retry, s.retrySet = time.Duration(ms)*time.Millisecond, true
			}
		}
	}
}

// line returns one line without its line ending, bounded by maxEvent.
func (s *sseReader) line() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		if len(line)+len(chunk) > s.maxEvent+2 {
			return nil, ErrFrameTooLarge
		}
		switch {
		case err == nil:
			line = append(line, chunk...)
			line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
			return line, nil
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

// limitReader reads at most n bytes and fails with ErrFrameTooLarge past
// them.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		var one [1]byte
		if k, _ := l.r.Read(one[:]); k > 0 {
			return 0, ErrFrameTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	k, err := l.r.Read(p)
	l.n -= int64(k)
	return k, err
}
