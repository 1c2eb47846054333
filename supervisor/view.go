package supervisor

// Renderings of the live tree, for operators and tests.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Format is a rendering of the tree.
type Format string

// Renderings of the tree.
const (
	// FormatJSON is indented JSON: each node an object with kind, id,
	// attrs and children, the shape [Node] decodes from.
	FormatJSON Format = "json"
	// FormatText is the indented text of [Node.String].
	FormatText Format = "text"
)

// ErrUnknownFormat is returned by Render for a format it does not know.
var ErrUnknownFormat = errors.New("supervisor: unknown tree format")

// Render takes a snapshot of the live tree and writes it in format f:
// the executor with its counts; each connection with its writer and its
// requests (method, id, state, age, deadline); each listener or handler
// with its requests (and their peers); each subscription stream under
// its request. It is what an operator reads to see what a running server
// is doing, and what a test can log when an assertion fails.
func (s *Supervisor) Render(w io.Writer, f Format) error {
	switch f {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s.Tree())
	case FormatText:
		_, err := io.WriteString(w, s.Tree().String())
		return err
	}
	return fmt.Errorf("%w %q", ErrUnknownFormat, f)
}

// Handler returns an http.Handler that renders the live tree, for a debug
// mux: JSON by default or with ?format=json, indented text with
// ?format=text; any other format is 400. Mount it only where operators
// may look: request ids, methods and peers are visible.
func (s *Supervisor) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		f := Format(r.URL.Query().Get("format"))
		if f == "" {
			f = FormatJSON
		}
		var b bytes.Buffer
		if err := s.Render(&b, f); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if f == FormatText {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write(b.Bytes())
	})
}
