package stdio

// Newline framing: the chunk-bounded line reader.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/tree"
	"github.com/snodo-go/snodo/jsonrpc"
)

// chunkSize is how much input is read at a time.
const chunkSize = 64 << 10

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// lineReader frames newline-delimited messages. It reads in chunks of at
// most chunkSize into one fixed buffer and never holds more than maxLine
// bytes of one line: a line's bytes are copied out of the buffer into a
// slice whose capacity is capped at maxLine, and a line that would exceed
// the limit is discarded chunk by chunk up to its newline and reported as
// too large. The line after it is read normally.
type lineReader struct {
	r       *bufio.Reader
	maxLine int // counting the newline
	started bool
	peak    int // the largest line buffer allocated so far, in bytes
	// sink hears of each line refused as too long; nil: none.
	sink instrumentation.Sink
}

func newLineReader(r io.Reader, maxLine int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, chunkSize), maxLine: maxLine}
}

// ReadFrame implements tree.FrameReader. Blank lines are skipped.
func (l *lineReader) ReadFrame() ([]byte, error) {
	for {
		line, err := l.readLine()
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
	}
}

func (l *lineReader) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !l.started && len(chunk) > 0 {
			// ReadSlice returns the whole first line (or a full buffer),
			// so a leading BOM is entirely in the first chunk unless the
			// input ends within three bytes.
			l.started = true
			chunk = bytes.TrimPrefix(chunk, utf8BOM)
		}
		complete := err == nil
		body := chunk
		if complete {
			body = chunk[:len(chunk)-1] // the newline
		}
		// The newline counts against the limit; so does the newline an
		// unterminated last line would have had.
		if len(line)+len(body)+1 > l.maxLine {
			if !complete && err != io.EOF {
				if derr := l.discardLine(); derr != nil && derr != io.EOF {
					return nil, derr
				}
			}
			l.refused()
			return nil, fmt.Errorf("%w: line exceeds %d bytes", tree.ErrFrameTooLarge, l.maxLine)
		}
		if complete {
			if line == nil {
				l.peak = max(l.peak, len(body))
				return bytes.Clone(body), nil
			}
			return l.grow(line, body), nil
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			line = l.grow(line, body)
		case errors.Is(err, io.EOF):
			if len(line)+len(body) == 0 {
				return nil, io.EOF
			}
			return l.grow(line, body), nil
		default:
			return nil, err
		}
	}
}

// refused reports a line refused as too long to the sink: the
// connection answers it with -32600 and no id.
func (l *lineReader) refused() {
	if l.sink != nil { // mutation: stdio-long-line-is-a-refusal
		l.sink.Refusal(instrumentation.RefusalEvent{Transport: "stdio", Reason: instrumentation.RefusalLineTooLong, Code: jsonrpc.CodeInvalidRequest})
	}
}

// grow appends body to line. The capacity doubles, as append's would, but
// never beyond maxLine: the caller has checked that the result fits.
func (l *lineReader) grow(line, body []byte) []byte {
	need := len(line) + len(body)
	if need > cap(line) {
		c := max(2*cap(line), need, chunkSize)
		c = min(c, l.maxLine)
		grown := make([]byte, len(line), c)
		copy(grown, line)
		line = grown
		l.peak = max(l.peak, c)
	}
	return append(line, body...)
}

// discardLine skips input up to and including the next newline.
func (l *lineReader) discardLine() error {
	for {
		_, err := l.r.ReadSlice('\n')
		if err == nil {
			return nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}
