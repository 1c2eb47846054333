// This file starts the native Streamable HTTP listener for a test.

package testfixture

import (
	"context"
	"testing"

	"github.com/snodo-go/snodo/dispatch"
	"github.com/snodo-go/snodo/supervisor"
	"github.com/snodo-go/snodo/testkit"
	"github.com/snodo-go/snodo/transports/streamablehttp"
)

// HTTPServer is a native listener started for a test, with the
// supervisor it runs under.
type HTTPServer struct {
	*streamablehttp.Server
	// Sup is the supervisor the listener runs under: its Tree shows the
	// listener's requests.
	Sup *supervisor.Supervisor
}

// StartHTTP runs the native listener on 127.0.0.1 (an ephemeral port)
// under a new supervisor. When the test ends the listener and the
// supervisor are closed, and the test fails if a message reached a
// stopped actor.
func StartHTTP(t testing.TB, rt *dispatch.Runtime, opts ...streamablehttp.ListenerOption) *HTTPServer {
	t.Helper()
	sup, err := supervisor.New(rt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeSupervisor(t, sup) })
	return StartHTTPWith(t, sup, rt, opts...)
}

// StartHTTPWith is StartHTTP under an existing supervisor, which the
// caller closes.
func StartHTTPWith(t testing.TB, sup *supervisor.Supervisor, rt *dispatch.Runtime, opts ...streamablehttp.ListenerOption) *HTTPServer {
	t.Helper()
	srv, err := streamablehttp.Listen(rt, append([]streamablehttp.ListenerOption{streamablehttp.WithSupervisor(sup)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("testfixture: closing listener: %v", err)
		}
	})
	return &HTTPServer{Server: srv, Sup: sup}
}

func closeSupervisor(t testing.TB, sup *supervisor.Supervisor) {
	ctx, cancel := context.WithTimeout(context.Background(), testkit.DefaultTimeout)
	defer cancel()
	if err := sup.Close(ctx); err != nil {
		t.Errorf("testfixture: closing supervisor: %v", err)
	}
	if n := sup.UnexpectedDeadLetters(); n != 0 {
		t.Errorf("testfixture: %d unexpected dead letters", n)
	}
}
