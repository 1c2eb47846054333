package supervisor

// The debug page's actions, when the application turns them on
// (WithActions): a POST names an action and a node; the Origin and the
// application's authorization are checked before anything is done.

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/snodo-go/snodo/internal/tree"
)

// ErrStoppedByOperator is why a connection ended when an operator stopped
// it from the debug page (its Serve returns it).
var ErrStoppedByOperator = tree.ErrStoppedByOperator

// offerActions marks the nodes of v that take an action: a request of a
// byte-stream connection can be cancelled, a connection stopped.
func (v *pageView) offerActions() {
	var mark func(n *pageNode, parent Kind)
	mark = func(n *pageNode, parent Kind) {
		switch {
		case n.Kind == kindConnection:
			n.Action = tree.ActionStop
		case n.Kind == kindRequest && parent == kindConnection:
			n.Action = tree.ActionCancel
		}
		for _, c := range n.Children {
			mark(c, n.Kind)
		}
	}
	if v.Root != nil {
		mark(v.Root, "")
	}
}

// maxActionBody bounds an action's form.
const maxActionBody = 4 << 10

// act performs action on the node at id.
func (s *Supervisor) act(action, id string) error { return s.sys.Act(id, action) }

func (h *debugHandler) serveAction(w http.ResponseWriter, r *http.Request) {
	if !sameOrigin(r) { // mutation: page-refuses-other-origin
		http.Error(w, "forbidden: Origin is not this host", http.StatusForbidden)
		return
	}
	if err := h.cfg.authorize(r); err != nil { // mutation: page-asks-the-application
		http.Error(w, "forbidden", http.StatusForbidden)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxActionBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	action, id := r.PostForm.Get("action"), r.PostForm.Get("id")
	if action != tree.ActionCancel && action != tree.ActionStop {
		http.Error(w, "unknown action", http.StatusBadRequest)
		return
	}
	if err := h.act(action, id); err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, tree.ErrNoAction) {
			status = http.StatusNotFound
		}
		http.Error(w, err.Error(), status)
		return
	}
	// A form posted from the page goes back to it; a script or a tool
	// gets no content.
	if negotiate(r.Header.Values("Accept")) == formatHTML {
		http.Redirect(w, r, r.URL.Path, http.StatusSeeOther)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// sameOrigin reports whether r's Origin, when it has one, names r's own
// host: a browser sends Origin with every POST, so a form on another
// site cannot act. Several Origin headers, or one that does not parse
// or carries userinfo, are refused; "null" (an opaque origin) too.
func sameOrigin(r *http.Request) bool {
	vals := r.Header.Values("Origin")
	switch len(vals) {
	case 0:
		return true
	case 1:
	default:
		return false
	}
	u, err := url.Parse(vals[0])
	if err != nil || u.User != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}
