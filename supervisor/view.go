package supervisor

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// WriteText writes the tree as indented text, one node per line:
//
//	supervisor snodo
//	├── connection snodo/stdio$1 requests=2 transport=stdio …
//	│   ├── request snodo/stdio$1/req$4 age=1.2s deadline=… id=7 method=tools/call state=running
//	│   └── writer snodo/stdio$1/writer inflight=0 pending=0 written=12
//	└── executor snodo/executor queued=0 running=2 …
func WriteText(w io.Writer, n *Node) error {
	var b strings.Builder
	writeNode(&b, n, "", "")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeNode(b *strings.Builder, n *Node, first, rest string) {
	b.WriteString(first)
	b.WriteString(string(n.Kind))
	b.WriteByte(' ')
	b.WriteString(n.ID)
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(b, " %s=%s", k, quoteIfNeeded(n.Attrs[k]))
	}
	b.WriteByte('\n')
	for i, c := range n.Children {
		if i == len(n.Children)-1 {
			writeNode(b, c, rest+"└── ", rest+"    ")
		} else {
			writeNode(b, c, rest+"├── ", rest+"│   ")
		}
	}
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\n\"=") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

// WriteJSON writes the tree as indented JSON: each node an object with
// kind, id, attrs and children, the shape [Node] decodes from.
func WriteJSON(w io.Writer, n *Node) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(n)
}

// Format is a rendering of the tree.
type Format string

// Renderings of the tree.
const (
	// FormatJSON is [WriteJSON]'s indented JSON.
	FormatJSON Format = "json"
	// FormatText is [WriteText]'s indented text.
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
		return WriteJSON(w, s.Tree())
	case FormatText:
		return WriteText(w, s.Tree())
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
