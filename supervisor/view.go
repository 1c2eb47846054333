package supervisor

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
)

// WriteText writes the tree as indented text, one node per line:
//
//	supervisor snodo
//	├── executor snodo/executor running=2 queued=0 …
//	└── connection snodo/stdio$1 requests=2 transport=stdio
//	    ├── request snodo/stdio$1/req$4 age=1.2s id=7 method=tools/call …
//	    └── writer snodo/stdio$1/writer inflight=0 pending=0 written=12
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

// Handler returns an http.Handler that renders the live tree, for a debug
// mux: JSON by default, indented text with ?format=text. Mount it only
// where operators may look: request ids and methods are visible.
func (s *Supervisor) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		tree := s.Tree()
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Query().Get("format") == "text" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			_ = WriteText(w, tree)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(tree)
	})
}
