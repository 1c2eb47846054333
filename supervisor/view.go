package supervisor

// Renderings of the live tree, for operators and tests.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// render writes the live tree as indented JSON or, with text, as the
// indented text of [Node.String].
func (s *Supervisor) render(w io.Writer, text bool) error {
	if text {
		_, err := io.WriteString(w, s.Tree().String())
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(s.Tree())
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
		f := r.URL.Query().Get("format")
		if f != "" && f != "json" && f != "text" {
			http.Error(w, fmt.Sprintf("supervisor: unknown tree format %q", f), http.StatusBadRequest)
			return
		}
		var b bytes.Buffer
		if err := s.render(&b, f == "text"); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		if f == "text" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write(b.Bytes())
	})
}
