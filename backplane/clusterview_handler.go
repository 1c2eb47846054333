// This file serves the cluster view over HTTP, for a debug mux.

package backplane

import (
	"encoding/json"
	"net/http"
	"strings"
)

// Handler returns an http.Handler that serves the trees of every live
// instance, gathered as [ClusterView.Trees] does within
// [DefaultTreesTimeout] (or the request's context, if it ends first). On
// GET it serves, by ?format=, json (the default: a [ClusterTrees]) or
// text (each instance's name and its tree as supervisor.Node.String
// renders it, then a line naming the missing instances); any other
// format is 400, other methods 405. Mount it only where operators may
// look, as the supervisor's DebugHandler.
func (v *ClusterView) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		format := r.URL.Query().Get("format")
		if format != "" && format != "json" && format != "text" {
			http.Error(w, "format is json or text", http.StatusBadRequest)
			return
		}
		trees, _ := v.Trees(r.Context())
		w.Header().Set("Cache-Control", "no-store")
		if format == "text" {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			var b strings.Builder
			for _, t := range trees.Trees {
				b.WriteString("instance " + t.Instance + "\n")
				b.WriteString(t.Tree.String())
				b.WriteString("\n")
			}
			if len(trees.Missing) > 0 {
				b.WriteString("missing " + strings.Join(trees.Missing, " ") + "\n")
			}
			_, _ = w.Write([]byte(b.String()))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(trees)
	})
}
