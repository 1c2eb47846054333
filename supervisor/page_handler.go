package supervisor

// The debug handler: one path serving the tree as JSON, text, the HTML
// page and the page's event stream (by ?format= or the Accept header),
// and, when the application turns them on, the page's actions (POST).

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/snodo-go/snodo/internal/executor"
	"github.com/snodo-go/snodo/internal/sse"
)

// eventWriteTimeout bounds each write of an event to a page's stream.
const eventWriteTimeout = 10 * time.Second

// debugHandler is what [Supervisor.DebugHandler] returns.
type debugHandler struct {
	snapshot func() *Node
	feed     *feed
	cfg      handlerConfig
	done     <-chan struct{} // closed when the supervisor closes
	act      func(action, id string) error
}

// Handler returns the debug handler with its defaults: read-only, the
// page's bounds as [PageLimits] states them. See [Supervisor.DebugHandler].
func (s *Supervisor) Handler() http.Handler {
	h, _ := s.DebugHandler()
	return h
}

// DebugHandler returns an http.Handler that shows the live tree, for a
// debug mux. On GET it serves, by ?format= or else by the Accept header:
//
//   - json (the default, and for any Accept without text/html or
//     text/event-stream): the whole snapshot as indented JSON;
//   - text: the whole snapshot as the text of [Node.String];
//   - html (a browser's Accept): the page, a bounded view of the tree
//     that works without JavaScript and, with it, follows the event
//     stream, with collapsible nodes and a search box (?q= filters the
//     server's rendering);
//   - events (Accept: text/event-stream): the page's stream.
//
// Any other format is 400, and methods other than GET and HEAD are 405,
// unless [WithActions] allows POST. The page is bounded whatever the
// tree's size, and its streams share snapshots, taken at most once per
// interval ([PageLimits]). Mount it only where operators may look
// (request ids, methods, peers and filters are visible), never on a
// public listener.
func (s *Supervisor) DebugHandler(opts ...HandlerOption) (http.Handler, error) {
	var c handlerConfig
	for _, o := range opts {
		if err := o.applyHandler(&c); err != nil {
			return nil, fmt.Errorf("supervisor: %w", err)
		}
	}
	h := newDebugHandler(c, s.Tree, s.exec.Stats, s.events.ctx.Done())
	if c.authorize != nil {
		h.act = s.act
	}
	return h, nil
}

func newDebugHandler(c handlerConfig, snapshot func() *Node, stats func() executor.Stats, done <-chan struct{}) *debugHandler {
	c.limits = c.limits.withDefaults()
	h := &debugHandler{snapshot: snapshot, cfg: c, done: done}
	h.feed = &feed{snapshot: snapshot, stats: stats, now: time.Now, limits: c.limits}
	h.feed.actions = c.authorize != nil
	return h
}

func (h *debugHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && h.cfg.authorize != nil:
		h.serveAction(w, r)
		return
	case r.Method != http.MethodGet && r.Method != http.MethodHead:
		allow := "GET, HEAD"
		if h.cfg.authorize != nil {
			allow += ", POST"
		}
		w.Header().Set("Allow", allow)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	f := Format(r.URL.Query().Get("format"))
	if f == "" {
		f = negotiate(r.Header.Values("Accept"))
		w.Header().Add("Vary", "Accept")
	}
	w.Header().Set("Cache-Control", "no-store")
	switch f {
	case formatEvents:
		h.serveEvents(w, r)
	case formatHTML:
		// Without a search, the page is the feed's newest view (taken
		// within an interval, shared with the streams); a search walks
		// a snapshot of its own.
		var v *pageView
		if q := r.URL.Query().Get("q"); q != "" {
			v = summarize(h.snapshot(), time.Now(), h.cfg.limits.MaxChildren, h.cfg.limits.MaxNodes, q)
			if h.feed.actions {
				v.offerActions()
			}
		} else {
			v = h.feed.latest(true).view
		}
		var b bytes.Buffer
		if err := writePage(&b, v); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", pageCSP)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		_, _ = w.Write(b.Bytes())
	case formatJSON, formatText:
		var b bytes.Buffer
		_ = renderTree(&b, h.snapshot(), f)
		if f == formatText {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		} else {
			w.Header().Set("Content-Type", "application/json")
		}
		_, _ = w.Write(b.Bytes())
	default:
		http.Error(w, ErrUnknownFormat.Error()+" "+strconv.Quote(string(f)), http.StatusBadRequest)
	}
}

// negotiate picks the format an Accept header asks for: the event stream
// or the page when it names them (with a non-zero quality), JSON
// otherwise.
func negotiate(accept []string) Format {
	html := false
	for _, line := range accept {
		for part := range strings.SplitSeq(line, ",") {
			typ, params, _ := strings.Cut(part, ";")
			if q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q="); ok {
				if v, err := strconv.ParseFloat(q, 64); err == nil && v == 0 {
					continue
				}
			}
			switch strings.ToLower(strings.TrimSpace(typ)) {
			case "text/event-stream":
				return formatEvents
			case "text/html":
				html = true
			}
		}
	}
	if html {
		return formatHTML
	}
	return formatJSON
}

// serveEvents streams the bounded view (of the nodes matching ?q=, when
// given): the newest at once, then each new one the feed takes, until
// the client goes away, the supervisor closes or the stream's age runs
// out.
func (h *debugHandler) serveEvents(w http.ResponseWriter, r *http.Request) {
	lim := h.cfg.limits
	if n := h.feed.streams.Add(1); n > int64(lim.MaxStreams) { // mutation: page-caps-streams
		h.feed.streams.Add(-1)
		w.Header().Set("Retry-After", strconv.Itoa(int(lim.Refresh/time.Second)+1))
		http.Error(w, "too many debug streams open", http.StatusServiceUnavailable)
		return
	}
	defer h.feed.streams.Add(-1)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	rc := http.NewResponseController(w)
	tick := time.NewTicker(lim.Interval)
	defer tick.Stop()
	life := time.NewTimer(lim.MaxStreamAge)
	defer life.Stop()
	var sent int64
	// The browser reconnects this long after the stream ends.
	buf := []byte("retry: 1000\n\n")
	fd := h.feed
	if q := r.URL.Query().Get("q"); q != "" {
		fd = &feed{snapshot: fd.snapshot, stats: fd.stats, now: fd.now, limits: fd.limits, actions: fd.actions, query: q}
		defer func() { h.feed.snapshots.Add(fd.snapshots.Load()) }()
	}
	for {
		if fr := fd.latest(false); fr.seq != sent {
			buf = sse.AppendEvent(buf, sse.Event{Type: "tree", ID: strconv.FormatInt(fr.seq, 10), Data: fr.data})
			sent = fr.seq
		}
		if len(buf) > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
			if _, err := w.Write(buf); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
			h.feed.bytesSent.Add(int64(len(buf)))
			buf = buf[:0]
		}
		select {
		case <-r.Context().Done():
			return
		case <-h.done:
			return
		case <-life.C:
			return
		case <-tick.C:
		}
	}
}
