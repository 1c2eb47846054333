package main

// The MCP server: tools and a resource template served by the rooms'
// actors, and the supervision tree they run in.

import (
	"context"
	"encoding/json"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
)

var (
	sayArgs = json.RawMessage(`{"type":"object","properties":{` +
		`"room":{"type":"string","pattern":"^[a-z0-9-]{1,32}$"},` +
		`"text":{"type":"string","maxLength":500}},"required":["room","text"],"additionalProperties":false}`)
	waitArgs = json.RawMessage(`{"type":"object","properties":{` +
		`"room":{"type":"string","pattern":"^[a-z0-9-]{1,32}$"}},"required":["room"],"additionalProperties":false}`)
)

// newRuntime is the server: every handler is the "rooms" directory
// actor's, which the supervision tree starts (startService).
func newRuntime() (*dispatch.Runtime, error) {
	rooms := supervisor.Named("rooms")
	return dispatch.New(mcp.Implementation{Name: "actor-service", Version: "1.0.0"},
		// Application actors publish resource updates on this hub.
		dispatch.WithSubscriptions(hub.New(hub.Options{})),
		dispatch.WithTool(mcp.Tool{Name: "say", Description: "Says text in a room (created on first use); answers every wait in that room.", InputSchema: sayArgs}, rooms.Tool()),
		dispatch.WithTool(mcp.Tool{Name: "wait", Description: "Waits for the next message said in a room.", InputSchema: waitArgs}, rooms.Tool()),
		dispatch.WithResourceTemplate(mcp.ResourceTemplate{URITemplate: roomURI("{name}"), Name: "room", Description: "A room's transcript.", MIMEType: "text/plain"}, rooms.Resource()),
	)
}

// startService starts the supervision tree for rt with the rooms'
// directory in it. A directory that fails is restarted (up to three
// times a minute), with no rooms.
func startService(rt *dispatch.Runtime, opts ...supervisor.Option) (*supervisor.Supervisor, error) {
	sup, err := supervisor.New(rt, opts...)
	if err != nil {
		return nil, err
	}
	app, err := sup.ApplicationPID()
	if err == nil {
		restart := actor.NewOneForOneStrategy(3, time.Minute, func(any) actor.Directive { return actor.RestartDirective })
		_, err = sup.Spawn("rooms", actor.PropsFromProducer(func() actor.Actor { return newDirectory(app) }), restart)
	}
	if err != nil {
		_ = sup.Close(context.Background())
		return nil, err
	}
	return sup, nil
}
