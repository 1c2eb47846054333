package snodoserver

// The variants of the benchmark server: the same echo tool served another
// way (by an actor, under policies, through a proxy), each measured against the plain call.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"

	"github.com/asynkron/protoactor-go/actor"
	"golang.org/x/time/rate"

	"github.com/snodo-go/snodo/bench/internal/benchtool"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/proxy"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/inprocess"
)

// The variants NewVariantRuntime knows.
const (
	// VariantActor serves echo by a long-lived actor (supervisor.Named).
	VariantActor = "actor"
	// VariantLimited serves echo under a concurrency limit and a rate
	// limit whose bounds the load never reaches.
	VariantLimited = "limited"
	// VariantProxy serves the plain Runtime through package proxy: a
	// Runtime built from it as a remote server, reached in process
	// through a client.
	VariantProxy = "proxy"
)

// Variants lists the variants in report order.
var Variants = []string{VariantActor, VariantLimited, VariantProxy}

// echoActorName is the actor serving echo in VariantActor.
const echoActorName = "echo"

// NewVariantRuntime returns the Runtime of variant ("" is NewRuntime's)
// and what ends it (the proxy's connection; nothing for the others). A
// variant with an actor needs StartVariant once its supervisor exists.
func NewVariantRuntime(ctx context.Context, logger *slog.Logger, variant string) (*dispatch.Runtime, func(), error) {
	echoTool := mcp.Tool{Name: benchtool.EchoTool, InputSchema: json.RawMessage(benchtool.EchoSchema)}
	sleepTool := mcp.Tool{Name: benchtool.SleepTool, InputSchema: json.RawMessage(benchtool.SleepSchema)}
	opts := []dispatch.Option{
		dispatch.WithLogger(logger),
		dispatch.WithSubscriptions(hub.New(hub.Options{})),
		dispatch.WithTypedTool(sleepTool, sleep),
	}
	switch variant {
	case "":
		rt, err := NewRuntime(logger)
		return rt, func() {}, err
	case VariantProxy:
		remote, err := NewRuntime(logger)
		if err != nil {
			return nil, nil, err
		}
		b, err := proxy.Dial(ctx, inprocess.New(remote), proxy.WithLogger(logger))
		if err != nil {
			return nil, nil, err
		}
		return b.Runtime(), func() { _ = b.Close() }, nil
	case VariantActor:
		opts = append(opts, dispatch.WithTool(echoTool, supervisor.Named(echoActorName).Tool()))
	case VariantLimited:
		opts = append(opts,
			dispatch.WithComponentPolicies(
				dispatch.WithConcurrencyLimit(dispatch.ConcurrencyLimit{Max: 1 << 16}),
				dispatch.WithRateLimit(dispatch.RateLimit{Rate: rate.Limit(math.MaxInt32), Burst: math.MaxInt32}),
			),
			dispatch.WithTypedTool(echoTool, echo))
	default:
		return nil, nil, fmt.Errorf("snodoserver: unknown variant %q", variant)
	}
	rt, err := dispatch.New(mcp.Implementation{Name: "bench-snodo", Version: "1.0.0"}, opts...)
	return rt, func() {}, err
}

// StartVariant starts what variant needs in sup's tree (the echo actor of
// VariantActor); other variants need nothing.
func StartVariant(sup *supervisor.Supervisor, variant string) error {
	if variant != VariantActor {
		return nil
	}
	_, err := sup.Spawn(echoActorName, actor.PropsFromProducer(func() actor.Actor { return echoActor{} }), nil)
	return err
}

// echoActor answers each echo call it receives.
type echoActor struct{}

// Receive answers a *supervisor.ToolCall with its text.
func (echoActor) Receive(c actor.Context) {
	m, ok := c.Message().(*supervisor.ToolCall)
	if !ok {
		return
	}
	var a benchtool.EchoArgs
	if err := json.Unmarshal(m.Request.Arguments, &a); err != nil {
		c.Respond(&supervisor.CallError{Err: err})
		return
	}
	c.Respond(&supervisor.ToolResult{Result: mcp.TextResult(a.Text)})
}
