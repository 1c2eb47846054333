// Command server-floor-stdio is the stdio floor of the benchmark: one loop
// that reads a line, decodes the request with encoding/json and writes the
// encoded answer of the echo tool (bench/internal/floor). No checks, no
// concurrency: what any stdio server must spend per call at least. It
// serves stdio only; with -http it says it is unsupported.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/bench/internal/floor"
)

func main() {
	f := benchtool.ParseFlags()
	if f.HTTP != "" {
		os.Stderr.WriteString(benchtool.UnsupportedLine + "\n")
		return
	}
	if err := benchtool.ServeStats(); err != nil {
		benchtool.Fatal(err)
	}
	defer benchtool.StartProfile()()
	if err := serve(os.Stdin, os.Stdout); err != nil {
		benchtool.Fatal(err)
	}
}

// serve answers every line of in on out until in ends. Answers are
// buffered and written out whenever no further complete line is already
// read, so a pipelined burst costs one write, as it would the cheapest
// server, and no answer waits for input still to come.
func serve(in io.Reader, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	w := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(w) // Encode ends each answer with a newline
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var req floor.Request
			if json.Unmarshal(line, &req) == nil {
				if resp, ok := floor.Answer(&req); ok {
					if err := enc.Encode(resp); err != nil {
						return err
					}
				}
			}
		}
		if err != nil || !lineBuffered(r) {
			if ferr := w.Flush(); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lineBuffered reports whether r already holds a complete line.
func lineBuffered(r *bufio.Reader) bool {
	b, _ := r.Peek(r.Buffered())
	return bytes.IndexByte(b, '\n') >= 0
}
