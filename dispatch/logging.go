// Client logging: ClientLogger and the records that become
// notifications/message.

package dispatch

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/snodo-go/snodo/internal/rpcwire"
)

// Protocol log levels without a log/slog counterpart, for use with
// ClientLogger(ctx).Log. Debug, Info, Warn and Error map to debug, info,
// warning and error.
const (
	LevelNotice    = slog.LevelInfo + 2
	LevelCritical  = slog.LevelError + 4
	LevelAlert     = slog.LevelError + 8
	LevelEmergency = slog.LevelError + 12
)

// LoggerNameKey is the attribute key whose value, when given to
// ClientLogger(ctx).With, becomes the notification's "logger" field rather than
// part of its data.
const LoggerNameKey = "logger"

// WithClientLogging advertises the logging capability, which a server must do
// before it sends log notifications. Without it, [ClientLogger] discards
// everything.
func WithClientLogging() Option {
	return optionFunc(func(b *builder) error {
		b.rt.capabilities.Logging = &struct{}{}
		return nil
	})
}

// ClientLogger returns a logger whose records go to the client as
// notifications/message on the stream of the request ctx serves, before
// its response. Records below the level the request set in
// _meta["io.modelcontextprotocol/logLevel"] are dropped, and nothing at
// all is sent when the request set no level, when the Runtime was built
// without [WithClientLogging], or outside a handler. Each record's message and
// attributes become the notification's data object. At most
// Limits.MaxLogMessages notifications are sent per request.
//
// Log messages reach the client: keep secrets and personal data out.
func ClientLogger(ctx context.Context) *slog.Logger {
	s := stateFrom(ctx)
	if s == nil || s.rt.capabilities.Logging == nil || s.call.Info.LogLevel == "" || s.call.Notifier == nil {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(&clientLogHandler{s: s, min: protocolToSlog(s.call.Info.LogLevel)})
}

// protocolLevels maps protocol levels to slog levels.
var protocolLevels = []struct {
	name  string
	level slog.Level
}{
	{"debug", slog.LevelDebug}, {"info", slog.LevelInfo}, {"notice", LevelNotice},
	{"warning", slog.LevelWarn}, {"error", slog.LevelError}, {"critical", LevelCritical},
	{"alert", LevelAlert}, {"emergency", LevelEmergency},
}

func protocolToSlog(name string) slog.Level {
	for _, l := range protocolLevels {
		if l.name == name {
			return l.level
		}
	}
	return slog.LevelInfo
}

// slogToProtocol returns the highest protocol level at or below l.
func slogToProtocol(l slog.Level) string {
	name := "debug"
	for _, pl := range protocolLevels {
		if l >= pl.level {
			name = pl.name
		}
	}
	return name
}

// ErrLogLimit is the error a client log handler reports once a request
// has sent Limits.MaxLogMessages notifications.
var ErrLogLimit = errors.New("dispatch: log message limit reached")

type clientLogHandler struct {
	s      *callState
	min    slog.Level
	name   string
	attrs  []groupedAttr // from WithAttrs, with the groups open then
	groups []string
}

type groupedAttr struct {
	groups []string
	attr   slog.Attr
}

// within returns the object at the group path, creating it.
func within(m map[string]any, groups []string) map[string]any {
	for _, g := range groups {
		sub, ok := m[g].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[g] = sub
		}
		m = sub
	}
	return m
}

func (h *clientLogHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.min }

func (h *clientLogHandler) Handle(ctx context.Context, r slog.Record) error {
	s := h.s
	s.mu.Lock()
	if s.logCount >= s.rt.limits.MaxLogMessages {
		s.mu.Unlock()
		return ErrLogLimit
	}
	s.logCount++
	s.mu.Unlock()

	data := map[string]any{"message": r.Message}
	for _, ga := range h.attrs {
		addAttr(within(data, ga.groups), ga.attr)
	}
	target := within(data, h.groups)
	r.Attrs(func(a slog.Attr) bool {
		addAttr(target, a)
		return true
	})
	frame, err := rpcwire.EncodeNotification("notifications/message", logParams{Level: slogToProtocol(r.Level), Logger: h.name, Data: data})
	if err != nil {
		return err
	}
	// The record's context may be context.Background (Logger.Info); the
	// request's own context bounds the write.
	if s.ctx != nil {
		ctx = s.ctx
	}
	return s.call.Notifier.Notify(ctx, frame)
}

func (h *clientLogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append([]groupedAttr(nil), h.attrs...)
	for _, a := range attrs {
		if a.Key == LoggerNameKey && len(h.groups) == 0 {
			c.name = a.Value.String()
			continue
		}
		c.attrs = append(c.attrs, groupedAttr{groups: h.groups, attr: a})
	}
	return &c
}

func (h *clientLogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.groups = append(append([]string(nil), h.groups...), name)
	return &c
}

// addAttr puts a resolved attribute into a data object.
func addAttr(m map[string]any, a slog.Attr) {
	v := a.Value.Resolve()
	if a.Key == "" && v.Kind() != slog.KindGroup {
		return
	}
	switch v.Kind() {
	case slog.KindGroup:
		target := m
		if a.Key != "" {
			sub := map[string]any{}
			m[a.Key] = sub
			target = sub
		}
		for _, ga := range v.Group() {
			addAttr(target, ga)
		}
	case slog.KindTime:
		m[a.Key] = v.Time().Format(time.RFC3339Nano)
	case slog.KindDuration:
		m[a.Key] = v.Duration().String()
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			m[a.Key] = err.Error()
			return
		}
		m[a.Key] = v.Any()
	default:
		m[a.Key] = v.Any()
	}
}

type logParams struct {
	Level  string `json:"level"`
	Logger string `json:"logger,omitempty"`
	Data   any    `json:"data"`
}
