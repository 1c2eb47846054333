// The Runtime, its Limits and the options of New that are not about one
// capability.

package dispatch

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"

	"github.com/snodo-go/snodo/instrumentation"
	"github.com/snodo-go/snodo/internal/guard"
	"github.com/snodo-go/snodo/internal/jsonwire"
	"github.com/snodo-go/snodo/mcp"
)

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
	// MaxLogMessages is the most log notifications one request may send.
	// Default 1,000.
	MaxLogMessages int
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
	if l.MaxLogMessages <= 0 {
		l.MaxLogMessages = 1000
	}
	return l
}

// Runtime is an immutable MCP server definition: identity, components,
// enabled protocol revisions and limits. It is safe for concurrent use by
// any number of transports. Build one with [New]; invalid configuration is
// an error there, never at request time.
type Runtime struct {
	info          mcp.Implementation
	instructions  string
	limits        Limits
	logger        *slog.Logger
	registry      registry
	catalog       catalog
	capabilities  mcp.ServerCapabilities
	cache         [numCacheKinds]cacheHint
	infoMeta      json.RawMessage // {"io.modelcontextprotocol/serverInfo": info}
	authorizer    Authorizer      // nil: everything is visible and usable
	state         stateSealer
	extRoutes     map[string]*extensionRoute
	toolCallExt   *Extension               // the extension that intercepts tools/call, if any
	listenMembers map[string]*listenMember // filter members extensions add, by name
	source        SubscriptionSource       // nil: subscriptions/listen is unknown
	sessions      SessionSource            // source, when it feeds initialize-era sessions too
	sink          instrumentation.Sink     // nil: no events are built
	policies      *policyConfig            // WithComponentPolicies; nil: none
	metaCache     metaCache                // decoded 2026-07-28 _meta (meta_cache.go)
}

// Option configures a Runtime under construction. The With functions of
// this package build them; [New] applies them in order and returns the
// first error, which names the option.
type Option interface {
	applyRuntime(*builder) error
}

// optionFunc is an Option made of a function.
type optionFunc func(*builder) error

func (f optionFunc) applyRuntime(b *builder) error { return f(b) }

type builder struct {
	rt       *Runtime
	versions []string
	dialects []dialect

	tools       map[string]*toolEntry
	prompts     map[string]*promptEntry
	resources   map[string]*resourceEntry
	templates   []*templateEntry
	extensions  map[string]*Extension
	extRoutes   map[string]*extensionRoute
	toolCallExt *Extension
	catalog     Catalog // WithCatalog; nil: the components never change
	// listenMembers are the filter members extensions add, by name.
	listenMembers map[string]*listenMember
	mounts        []*mountPart
}

// WithInstructions sets the natural-language guidance returned by
// server/discover (and initialize).
func WithInstructions(s string) Option {
	return optionFunc(func(b *builder) error { b.rt.instructions = s; return nil })
}

// WithLogger sets the logger for application panics and runtime warnings.
// The default is slog.Default(), which writes to standard error.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(b *builder) error {
		if l == nil {
			return errors.New("dispatch: nil logger")
		}
		b.rt.logger = l
		return nil
	})
}

// WithLimits sets the per-request limits.
func WithLimits(l Limits) Option {
	return optionFunc(func(b *builder) error {
		if l.PageSize < 0 || l.MaxProgressUpdates < 0 || l.MaxProgressMessageBytes < 0 || l.MaxLogMessages < 0 {
			return errors.New("dispatch: limits must not be negative")
		}
		b.rt.limits = l
		return nil
	})
}

// WithProtocolVersions enables exactly these protocol revisions, in
// preference order; the first initialize-era one is what initialize offers
// a client asking for a version that is not enabled. Unknown or repeated
// versions are an error. The default is every revision of [mcp.Versions].
func WithProtocolVersions(versions ...string) Option {
	return optionFunc(func(b *builder) error {
		if len(versions) == 0 {
			return errors.New("dispatch: WithProtocolVersions needs at least one version")
		}
		b.versions = slices.Clone(versions)
		return nil
	})
}

// withDialect enables an additional protocol revision after the built-in
// ones. Only this package's tests use it, to plug in stand-in revisions:
// the registry and the pipeline take a new revision without changing.
func withDialect(d dialect) Option {
	return optionFunc(func(b *builder) error {
		if d == nil {
			return errors.New("dispatch: nil dialect")
		}
		b.dialects = append(b.dialects, d)
		return nil
	})
}

// New builds a Runtime for the server described by info (Name and Version
// are required). Every option is checked here: a Runtime that New returns
// never fails a request because of its configuration.
func New(info mcp.Implementation, opts ...Option) (*Runtime, error) {
	if info.Name == "" || info.Version == "" {
		return nil, errors.New("dispatch: server name and version are required")
	}
	rt := &Runtime{
		info:   info,
		logger: slog.Default(),
	}
	b := &builder{
		rt: rt, versions: mcp.Versions(),
		tools: map[string]*toolEntry{}, prompts: map[string]*promptEntry{}, resources: map[string]*resourceEntry{},
		extensions: map[string]*Extension{}, extRoutes: map[string]*extensionRoute{},
	}
	for _, opt := range opts {
		if opt == nil {
			return nil, errors.New("dispatch: nil option")
		}
		if err := opt.applyRuntime(b); err != nil {
			return nil, err
		}
	}
	rt.sink = guard.Sink(rt.sink, rt.logger)
	reg, err := newRegistry(b.versions, b.dialects)
	if err != nil {
		return nil, err
	}
	rt.registry = reg
	if rt.infoMeta, err = jsonwire.Marshal(map[string]any{mcp.MetaServerInfo: rt.info}); err != nil {
		return nil, fmt.Errorf("dispatch: server info: %w", err)
	}
	rt.limits = rt.limits.withDefaults()
	if err := checkResourceOverlap(b.resources, b.templates); err != nil {
		return nil, err
	}
	if err := rt.state.finish(); err != nil {
		return nil, err
	}
	snap := newSnapshot(b.tools, b.prompts, b.resources, b.templates)
	rt.catalog = staticCatalog{snap}
	if len(snap.toolList) > 0 {
		rt.capabilities.Tools = &mcp.ListChangedCapability{}
	}
	if len(snap.promptList) > 0 {
		rt.capabilities.Prompts = &mcp.ListChangedCapability{}
	}
	if len(snap.resourceList) > 0 || len(snap.templates) > 0 {
		rt.capabilities.Resources = &mcp.ResourcesCapability{}
	}
	if snap.canComplete() {
		rt.capabilities.Completions = &struct{}{}
	}
	if err := b.finishSubscriptions(); err != nil {
		return nil, err
	}
	if err := b.finishMounts(); err != nil {
		return nil, err
	}
	for id, e := range b.extensions {
		for _, v := range e.Versions {
			if !slices.Contains(reg.versions, v) {
				return nil, fmt.Errorf("dispatch: extension %q names protocol version %q, which is not enabled", id, v)
			}
		}
		if rt.capabilities.Extensions == nil {
			rt.capabilities.Extensions = map[string]map[string]any{}
		}
		settings := e.Settings
		if settings == nil {
			settings = map[string]any{}
		}
		rt.capabilities.Extensions[id] = settings
	}
	rt.extRoutes = b.extRoutes
	rt.toolCallExt = b.toolCallExt
	rt.listenMembers = b.listenMembers
	reg.checkRuntime(rt)
	return rt, nil
}

// Info returns the server's identity.
func (rt *Runtime) Info() mcp.Implementation { return rt.info }

// Capabilities returns the capabilities the server advertises. The
// extensions map is a copy; the settings objects inside it are shared and
// must not be changed.
func (rt *Runtime) Capabilities() mcp.ServerCapabilities {
	c := rt.capabilities
	c.Extensions = maps.Clone(c.Extensions)
	return c
}

// protocolVersions returns the enabled revisions in preference order.
func (rt *Runtime) protocolVersions() []string { return slices.Clone(rt.registry.versions) }

// Logger returns the Runtime's logger.
func (rt *Runtime) Logger() *slog.Logger { return rt.logger }

// Tools returns the registered tools sorted by name.
func (rt *Runtime) Tools() []mcp.Tool {
	list := rt.catalog.snapshot().toolList
	out := make([]mcp.Tool, len(list))
	for i, e := range list {
		out[i] = e.tool
	}
	return out
}

// Prompts returns the registered prompts sorted by name.
func (rt *Runtime) Prompts() []mcp.Prompt {
	list := rt.catalog.snapshot().promptList
	out := make([]mcp.Prompt, len(list))
	for i, e := range list {
		out[i] = e.prompt
	}
	return out
}

// Resources returns the registered resources sorted by URI.
func (rt *Runtime) Resources() []mcp.Resource {
	list := rt.catalog.snapshot().resourceList
	out := make([]mcp.Resource, len(list))
	for i, e := range list {
		out[i] = e.resource
	}
	return out
}

// ResourceTemplates returns the registered templates sorted by URI
// template.
func (rt *Runtime) ResourceTemplates() []mcp.ResourceTemplate {
	list := rt.catalog.snapshot().templateList
	out := make([]mcp.ResourceTemplate, len(list))
	for i, e := range list {
		out[i] = e.template
	}
	return out
}
