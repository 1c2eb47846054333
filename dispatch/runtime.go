package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/snodo-go/snodo/dispatch/jsonrpc"
)

// Protocol revisions.
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
)

// Reserved request _meta keys.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
	MetaProgressToken      = "progressToken"
)

// DefaultProtocolVersions are the revisions a Runtime serves unless
// [WithProtocolVersions] says otherwise, in preference order.
var DefaultProtocolVersions = []string{Version20260728}

// Limits bound what one request may make the server do. A zero field takes
// its default.
type Limits struct {
	// PageSize is the number of items per page of a list result. Default
	// 100.
	PageSize int
	// MaxProgressUpdates is the most progress notifications one request
	// may send. Default 1,000.
	MaxProgressUpdates int
	// MaxProgressMessageBytes bounds one progress notification's message.
	// Default 4,096.
	MaxProgressMessageBytes int
}

func (l Limits) withDefaults() Limits {
	if l.PageSize <= 0 {
		l.PageSize = 100
	}
	if l.MaxProgressUpdates <= 0 {
		l.MaxProgressUpdates = 1000
	}
	if l.MaxProgressMessageBytes <= 0 {
		l.MaxProgressMessageBytes = 4096
	}
	return l
}

// Runtime is an immutable MCP server definition: identity, components,
// enabled protocol revisions and limits. It is safe for concurrent use by
// any number of transports. Build one with [New]; invalid configuration is
// an error there, never at request time.
type Runtime struct {
	info         Implementation
	instructions string
	limits       Limits
	logger       *slog.Logger
	registry     registry
	tools        map[string]*toolEntry
	toolOrder    []*toolEntry // sorted by name
	capabilities ServerCapabilities
	cache        [numCacheKinds]cacheHint
	infoMeta     json.RawMessage // {"io.modelcontextprotocol/serverInfo": info}
}

// Option configures a Runtime under construction.
type Option func(*builder) error

type builder struct {
	rt       *Runtime
	versions []string
	dialects []Dialect
}

// WithInstructions sets the natural-language guidance returned by
// server/discover (and initialize).
func WithInstructions(s string) Option {
	return func(b *builder) error { b.rt.instructions = s; return nil }
}

// WithLogger sets the logger for application panics and runtime warnings.
// The default is slog.Default(), which writes to standard error.
func WithLogger(l *slog.Logger) Option {
	return func(b *builder) error {
		if l == nil {
			return errors.New("dispatch: nil logger")
		}
		b.rt.logger = l
		return nil
	}
}

// WithLimits sets the per-request limits.
func WithLimits(l Limits) Option {
	return func(b *builder) error {
		if l.PageSize < 0 || l.MaxProgressUpdates < 0 || l.MaxProgressMessageBytes < 0 {
			return errors.New("dispatch: limits must not be negative")
		}
		b.rt.limits = l
		return nil
	}
}

// WithProtocolVersions enables exactly these protocol revisions, in
// preference order. Unknown or repeated versions are an error.
func WithProtocolVersions(versions ...string) Option {
	return func(b *builder) error {
		if len(versions) == 0 {
			return errors.New("dispatch: WithProtocolVersions needs at least one version")
		}
		b.versions = slices.Clone(versions)
		return nil
	}
}

// WithDialect enables an additional protocol revision implemented outside
// this package, after the built-in ones.
func WithDialect(d Dialect) Option {
	return func(b *builder) error {
		if d == nil {
			return errors.New("dispatch: nil dialect")
		}
		b.dialects = append(b.dialects, d)
		return nil
	}
}

var toolNameRE = regexp.MustCompile(`^[A-Za-z0-9_./-]{1,64}$`)

// WithTool registers a tool and its handler. The name must be 1 to 64
// characters of [A-Za-z0-9_./-] and unique; the schemas must be valid JSON
// objects.
func WithTool(t Tool, h ToolHandler) Option {
	return func(b *builder) error {
		if !toolNameRE.MatchString(t.Name) {
			return fmt.Errorf("dispatch: tool name %q must be 1 to 64 characters of [A-Za-z0-9_./-]", t.Name)
		}
		if h == nil {
			return fmt.Errorf("dispatch: tool %q has no handler", t.Name)
		}
		if _, dup := b.rt.tools[t.Name]; dup {
			return fmt.Errorf("dispatch: tool %q registered twice", t.Name)
		}
		if len(t.InputSchema) == 0 {
			t.InputSchema = []byte(`{"type":"object"}`)
		}
		if err := checkSchema(t.InputSchema); err != nil {
			return fmt.Errorf("dispatch: tool %q input schema: %w", t.Name, err)
		}
		if len(t.OutputSchema) > 0 {
			if err := checkSchema(t.OutputSchema); err != nil {
				return fmt.Errorf("dispatch: tool %q output schema: %w", t.Name, err)
			}
		}
		b.rt.tools[t.Name] = &toolEntry{tool: t, handler: h}
		return nil
	}
}

func checkSchema(s []byte) error {
	if !jsonrpc.Valid(s) {
		return errors.New("not valid JSON")
	}
	if t := strings.TrimLeft(string(s), " \t\r\n"); !strings.HasPrefix(t, "{") {
		return errors.New("must be a JSON object")
	}
	return nil
}

// New builds a Runtime for the server described by info (Name and Version
// are required).
func New(info Implementation, opts ...Option) (*Runtime, error) {
	if info.Name == "" || info.Version == "" {
		return nil, errors.New("dispatch: server name and version are required")
	}
	rt := &Runtime{
		info:   info,
		logger: slog.Default(),
		tools:  map[string]*toolEntry{},
	}
	b := &builder{rt: rt, versions: DefaultProtocolVersions}
	for _, opt := range opts {
		if err := opt(b); err != nil {
			return nil, err
		}
	}
	reg, err := newRegistry(b.versions, b.dialects)
	if err != nil {
		return nil, err
	}
	rt.registry = reg
	if rt.infoMeta, err = jsonrpc.Marshal(map[string]any{MetaServerInfo: rt.info}); err != nil {
		return nil, fmt.Errorf("dispatch: server info: %w", err)
	}
	rt.limits = rt.limits.withDefaults()
	for _, e := range rt.tools {
		rt.toolOrder = append(rt.toolOrder, e)
	}
	slices.SortFunc(rt.toolOrder, func(a, b *toolEntry) int { return strings.Compare(a.tool.Name, b.tool.Name) })
	if len(rt.tools) > 0 {
		rt.capabilities.Tools = &ListChangedCapability{}
	}
	return rt, nil
}

// Info returns the server's identity.
func (rt *Runtime) Info() Implementation { return rt.info }

// Instructions returns the server's instructions.
func (rt *Runtime) Instructions() string { return rt.instructions }

// Capabilities returns the capabilities the server advertises.
func (rt *Runtime) Capabilities() ServerCapabilities { return rt.capabilities }

// ProtocolVersions returns the enabled revisions in preference order.
func (rt *Runtime) ProtocolVersions() []string { return slices.Clone(rt.registry.versions) }

// Limits returns the per-request limits, defaults applied.
func (rt *Runtime) Limits() Limits { return rt.limits }

// Logger returns the Runtime's logger.
func (rt *Runtime) Logger() *slog.Logger { return rt.logger }

// Tools returns the registered tools sorted by name.
func (rt *Runtime) Tools() []Tool {
	out := make([]Tool, len(rt.toolOrder))
	for i, e := range rt.toolOrder {
		out[i] = e.tool
	}
	return out
}
