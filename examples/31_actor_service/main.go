// Command 31_actor_service is a chat service made of actors: one actor
// per room keeps that room's transcript and the calls waiting in it, and
// a directory actor routes each call to its room. The MCP tools and the
// room resource are served by those actors (supervisor.Named), the rooms
// publish their resource's updates to listen streams, and the
// supervision tree shows the rooms beside the connections and the calls
// in flight.
//
//	go run ./examples/31_actor_service          # serves on stdio
//	go run ./examples/31_actor_service -check   # the scenario in check.go, with the tree printed
//
// Tools: say {room, text} adds to a room (creating it) and answers every
// wait in it; wait {room} returns the next message said there. Resource:
// room:///{name}, the transcript.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/internal/excheck"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/transports/stdio"
)

func main() { excheck.MainWith(newRuntime, scenario, serve) }

// serve runs the service over standard input and output until input
// ends or ctx does.
func serve(ctx context.Context, rt *dispatch.Runtime) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	sup, err := startService(rt, supervisor.WithLogger(logger))
	if err != nil {
		return err
	}
	defer sup.Close(context.Background())
	return stdio.Serve(ctx, rt, stdio.WithSupervisor(sup))
}
