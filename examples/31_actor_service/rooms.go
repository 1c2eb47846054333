package main

// The application's actors: a directory that routes each call to the
// room it names, and one actor per room that keeps the room's state.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/mcp"
	"github.com/snodo-go/snodo/supervisor"
)

// roomURI is the resource of one room: its transcript.
func roomURI(name string) string { return "room:///" + name }

// directory routes calls to rooms, starting a room's actor the first
// time the room is named. It forwards each call with its ReplyTo as the
// sender, so the room answers the call directly.
type directory struct {
	app   *actor.PID // the application node: where Publish goes
	rooms map[string]*actor.PID
}

func newDirectory(app *actor.PID) *directory {
	return &directory{app: app, rooms: map[string]*actor.PID{}}
}

// Describe is what the directory shows in the supervision tree.
func (d *directory) Describe() map[string]string {
	return map[string]string{"rooms": strconv.Itoa(len(d.rooms))}
}

func (d *directory) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *actor.Restarting:
		// A restarted directory starts with no rooms; protoactor has
		// stopped the old ones.
		d.rooms = map[string]*actor.PID{}
	case *supervisor.ToolCall:
		var args struct {
			Room string `json:"room"`
		}
		if err := json.Unmarshal(m.Request.Arguments, &args); err != nil {
			c.Respond(&supervisor.CallError{Err: err})
			return
		}
		c.RequestWithCustomSender(d.room(c, args.Room), m, m.ReplyTo)
	case *supervisor.ResourceRead:
		pid, ok := d.rooms[m.Request.Vars.Get("name")]
		if !ok {
			c.Respond(&supervisor.CallError{Err: dispatch.ErrResourceNotFound})
			return
		}
		c.RequestWithCustomSender(pid, m, m.ReplyTo)
	case *supervisor.Cancelled:
		// Only the room knows whether it still holds the call; rooms
		// ignore a cancellation of a call they do not hold.
		for _, pid := range d.rooms {
			c.Send(pid, m)
		}
	}
}

// room returns the actor of the room called name, starting it if needed.
// Its actor is a child of the directory, so it too is in the tree and
// its calls end with -32603 if it fails.
func (d *directory) room(c actor.Context, name string) *actor.PID {
	if pid, ok := d.rooms[name]; ok {
		return pid
	}
	app := d.app
	pid, err := c.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &room{name: name, app: app} }), name)
	if err != nil {
		// The schema allows only names protoactor accepts, and the
		// directory is the only one spawning rooms.
		panic(fmt.Sprintf("room %q: %v", name, err))
	}
	d.rooms[name] = pid
	return pid
}

// room is one room: its transcript and the wait calls it holds.
type room struct {
	name     string
	app      *actor.PID
	messages []string
	waiting  []*supervisor.ToolCall
}

// Describe is what the room shows in the supervision tree.
func (r *room) Describe() map[string]string {
	return map[string]string{"room": r.name, "messages": strconv.Itoa(len(r.messages)), "waiting": strconv.Itoa(len(r.waiting))}
}

func (r *room) Receive(c actor.Context) {
	switch m := c.Message().(type) {
	case *supervisor.ToolCall:
		switch m.Request.Name {
		case "say":
			r.say(c, m)
		case "wait":
			// Held until someone speaks, or the call is cancelled.
			r.waiting = append(r.waiting, m)
		}
	case *supervisor.ResourceRead:
		c.Respond(&supervisor.ResourceResult{Result: &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			mcp.TextContents(m.Request.URI, "text/plain", strings.Join(r.messages, "\n")),
		}}})
	case *supervisor.Cancelled:
		for i, w := range r.waiting {
			if w.ReplyTo.Equal(m.ReplyTo) {
				r.waiting = append(r.waiting[:i], r.waiting[i+1:]...)
				break
			}
		}
	}
}

// say adds a message to the transcript, answers every waiting call with
// it, and tells listen streams that the room's resource changed.
func (r *room) say(c actor.Context, m *supervisor.ToolCall) {
	var args struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Request.Arguments, &args); err != nil {
		c.Respond(&supervisor.CallError{Err: err})
		return
	}
	r.messages = append(r.messages, args.Text)
	c.Respond(&supervisor.ToolResult{Result: mcp.TextResult(fmt.Sprintf("%s#%d: %s", r.name, len(r.messages), args.Text))})
	for _, w := range r.waiting {
		c.Send(w.ReplyTo, &supervisor.ToolResult{Result: mcp.TextResult(args.Text)})
	}
	r.waiting = nil
	// No sender: the application node publishes and answers no one.
	c.Send(r.app, &supervisor.Publish{Event: dispatch.Event{Kind: dispatch.EventResourceUpdated, URI: roomURI(r.name)}})
}
