// This file starts and stops one instance of the fixture in this
// process, with what it shares with the others over NATS.

package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/snodo-go/snodo/backplane"
	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/examples/everything/fixture"
	"github.com/snodo-go/snodo/hub"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/taskstore"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// deployment is the name every backplane component is given
// (backplane.WithName): the subjects and buckets the instances share.
const deployment = "clusterfixture"

// instance is one fixture and what it shares. Each field is set once
// start got that far; stop closes what is set, in reverse order.
type instance struct {
	name    string
	nc      *nats.Conn
	events  *backplane.Events
	catalog *backplane.Catalog
	store   *backplane.TaskStore
	relay   *backplane.Sessions
	srv     *fixture.Server
	sup     *supervisor.Supervisor
	started bool // srv's task runner
	http    *streamablehttp.Server
	url     string       // the listener's base URL
	served  atomic.Int64 // HTTP requests the listener read
	watched func()       // stops the watched resource's updates
}

// start runs the instance called name on the NATS server at natsURL.
// key is the requestState key every instance is given; catalogs are
// every instance's catalogs, which a trigger waits for.
func start(name, natsURL string, key []byte, sessions bool, catalogs *catalogSet, logger *slog.Logger) (in *instance, err error) {
	logger = logger.With("instance", name)
	in = &instance{name: name}
	defer func() {
		if err != nil {
			in.stop(logger)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	if in.nc, err = nats.Connect(natsURL, nats.Name(deployment+"-"+name)); err != nil {
		return nil, err
	}
	opts := []backplane.Option{backplane.WithName(deployment), backplane.WithLogger(logger)}
	h := hub.New(hub.Options{})
	if in.events, err = backplane.NewEvents(ctx, in.nc, h, opts...); err != nil {
		return nil, err
	}
	var defs backplane.Definitions
	defs.DefineTool(fixture.DynamicTool())
	defs.DefinePrompt(fixture.DynamicPrompt())
	if in.catalog, err = backplane.NewCatalog(ctx, in.nc, h, &defs, opts...); err != nil {
		return nil, err
	}
	if in.store, err = backplane.NewTaskStore(ctx, in.nc, taskstore.Options{}, opts...); err != nil {
		return nil, err
	}
	in.srv, err = fixture.New(fixture.Config{
		Logger: logger, Hub: h, Source: in.events, Store: in.store,
		Lists:   &sharedLists{catalog: in.catalog, all: catalogs},
		Options: []dispatch.Option{dispatch.WithRequestStateKeys(key)},
	})
	if err != nil {
		return nil, err
	}
	if in.sup, err = supervisor.New(in.srv.Runtime); err != nil {
		return nil, err
	}
	if err = in.srv.Start(ctx, in.sup); err != nil {
		return nil, err
	}
	in.started = true
	count := streamablehttp.WithHTTPMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			in.served.Add(1)
			next.ServeHTTP(w, r)
		})
	})
	lopts := []streamablehttp.ListenerOption{streamablehttp.WithAddr("127.0.0.1:0"), streamablehttp.WithSupervisor(in.sup), count}
	if sessions {
		if in.relay, err = backplane.NewSessions(ctx, in.nc, name, backplane.SessionsConfig{}, opts...); err != nil {
			return nil, err
		}
		lopts = append(lopts, streamablehttp.WithHTTPMiddleware(in.relay.Middleware),
			streamablehttp.WithSessions(streamablehttp.SessionConfig{IDPrefix: in.relay.IDPrefix()}))
	}
	if in.http, err = streamablehttp.Listen(in.srv.Runtime, lopts...); err != nil {
		return nil, err
	}
	in.url = in.http.URL()
	wctx, stopWatched := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); in.srv.WatchResource(wctx, fixture.WatchedInterval) }()
	in.watched = func() { stopWatched(); <-done }
	return in, nil
}

// stop drains the instance's listener, then closes the rest; what fails
// is logged.
func (in *instance) stop(logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	defer cancel()
	var errs []error
	if in.watched != nil {
		in.watched()
	}
	if in.http != nil {
		errs = append(errs, in.http.Shutdown(ctx))
	}
	if in.relay != nil {
		errs = append(errs, in.relay.Close())
	}
	if in.started {
		errs = append(errs, in.srv.Close(ctx))
	}
	if in.sup != nil {
		errs = append(errs, in.sup.Close(ctx))
	}
	if in.store != nil {
		errs = append(errs, in.store.Close())
	}
	if in.catalog != nil {
		errs = append(errs, in.catalog.Close())
	}
	if in.events != nil {
		errs = append(errs, in.events.Close())
	}
	if in.nc != nil {
		in.nc.Close()
	}
	if err := errors.Join(errs...); err != nil {
		logger.Error("stopping an instance", "instance", in.name, "error", err)
	}
}
